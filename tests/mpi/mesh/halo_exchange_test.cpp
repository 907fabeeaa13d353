// Halo exchange over real MPI under every execution model: after an exchange, every ghost
// cell facing a block holds that block's interior value, for every halo option.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

constexpr int kVars = 2;
constexpr double kSentinel = -1.0;

double cell_value(Int3 g, int var, int round) {
  return 1.0 + g.x + 100.0 * g.y + 1.0e4 * g.z + 1.0e6 * var + 1.0e7 * round;
}

struct ExchangeCase {
  ExecModel model;
  int threads;
  Int3 blocks;
  Int3 cells;
  int ghost;
  HaloOptions options;
};

std::string describe(const ExchangeCase& c) {
  const HaloOptions& o = c.options;
  std::string name = std::string(to_string(c.model)) + "_threads" + std::to_string(c.threads) +
                     "_blocks" + std::to_string(c.blocks.x) + std::to_string(c.blocks.y) +
                     std::to_string(c.blocks.z) + "_ghost" + std::to_string(c.ghost) +
                     (o.shape == HaloShape::faces ? "_faces" : "_full");
  if (o.send_faces) name += "_sendfaces";
  if (o.max_comm_tasks > 0) name += "_max" + std::to_string(o.max_comm_tasks);
  if (o.separate_buffers) name += "_separate";
  if (o.copy_per_block) name += "_perblock";
  if (o.staged) name += "_staged";
  return name;
}

void PrintTo(const ExchangeCase& c, std::ostream* os) {
  *os << describe(c);
}

std::vector<ExchangeCase> exchange_cases() {
  const std::vector<HaloOptions> options{
      {},
      {.send_faces = true},
      {.max_comm_tasks = 2},
      {.separate_buffers = true},
      {.send_faces = true, .separate_buffers = true},
      {.shape = HaloShape::full},
      {.shape = HaloShape::full, .max_comm_tasks = 3, .separate_buffers = true},
      {.shape = HaloShape::full, .staged = true},
  };
  std::vector<ExchangeCase> cases;
  for (auto [model, threads] :
       {std::pair{ExecModel::bsp, 1}, std::pair{ExecModel::forkjoin, 1},
        std::pair{ExecModel::forkjoin, 2}, std::pair{ExecModel::dataflow, 1},
        std::pair{ExecModel::dataflow, 2}}) {
    for (const HaloOptions& o : options) {
      cases.push_back({model, threads, {3, 2, 3}, {4, 3, 2}, 1, o});
    }
    cases.push_back({model, threads, {4, 3, 1}, {5, 4, 1}, 2, {}});  // 2-D
    cases.push_back({model, threads, {4, 3, 1}, {5, 4, 1}, 2, {.shape = HaloShape::full}});
    // Deep 3-D halos as jacobi7's --time-tile 3 exchanges them: all 26 directions, ghosts
    // as deep as the thinnest block edge, local ghosts by one copy task per block.
    cases.push_back({model,
                     threads,
                     {3, 2, 2},
                     {5, 3, 4},
                     3,
                     {.shape = HaloShape::full, .copy_per_block = true}});
    cases.push_back({model,
                     threads,
                     {3, 2, 2},
                     {5, 3, 4},
                     3,
                     {.shape = HaloShape::full, .send_faces = true, .staged = true}});
    cases.push_back(
        {model, threads, {4, 3, 1}, {5, 4, 1}, 2, {.shape = HaloShape::full, .staged = true}});
  }
  return cases;
}

class HaloExchangeMpi : public ::testing::TestWithParam<ExchangeCase> {};

TEST_P(HaloExchangeMpi, GhostsFacingABlockHoldItsInteriorAndOthersAreUntouched) {
  const ExchangeCase& c = GetParam();
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Runtime runtime(runtime_options_for(c.model, c.threads));
  Comm comm(runtime, MPI_COMM_WORLD);
  Exec exec(c.model, runtime);
  const UniformMesh mesh(c.blocks, c.cells, c.ghost, rank, ranks);
  const HaloPlan plan(mesh, c.options);
  HaloExchange halo(plan, kVars, comm, exec);
  BlockField u(mesh, runtime, "u", kVars);
  BlockField v(mesh, runtime, "v", kVars);
  const BlockLayout& layout = u.layout();
  const Int3 g = mesh.ghost();

  // Round r writes interior values of round r (as tasks, so dataflow orders them after
  // the previous exchange) and exchanges; the fields alternate so buffers are reused
  // across fields and rounds.
  for (BlockField* f : {&u, &v}) {
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      std::fill(f->data(b), f->data(b) + layout.size(), kSentinel);
    }
  }
  constexpr int kRounds = 3;
  for (int round = 0; round < kRounds; ++round) {
    BlockField& f = round % 2 == 0 ? u : v;
    exec.begin_phase("fill");
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      const Int3 o = mesh.cell_origin(mesh.local_block(b));
      runtime.submit("fill", {write(f.interior(b))}, [&layout, &c, data = f.data(b), o, round] {
        for (int var = 0; var < kVars; ++var)
          for (int k = 0; k < c.cells.z; ++k)
            for (int j = 0; j < c.cells.y; ++j)
              for (int i = 0; i < c.cells.x; ++i)
                data[layout.index(var, i, j, k)] =
                    cell_value({o.x + i, o.y + j, o.z + k}, var, round);
      });
    }
    exec.end_phase();
    halo.exchange(f);
  }
  runtime.wait_all();

  const auto directions = halo_directions(c.options.shape);
  for (int round = kRounds - 2; round < kRounds; ++round) {
    const BlockField& f = round % 2 == 0 ? u : v;
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      const MeshBlock& block = mesh.local_block(b);
      const Int3 o = mesh.cell_origin(block);
      const double* data = f.data(b);
      for (int var = 0; var < kVars; ++var)
        for (int k = -g.z; k < c.cells.z + g.z; ++k)
          for (int j = -g.y; j < c.cells.y + g.y; ++j)
            for (int i = -g.x; i < c.cells.x + g.x; ++i) {
              const Int3 cell{i, j, k};
              Direction d{{0, 0, 0}};
              for (int a = 0; a < 3; ++a) {
                d.offset[a] = cell[a] < 0 ? -1 : (cell[a] >= c.cells[a] ? 1 : 0);
              }
              const bool filled =
                  d.index() == 13 ||
                  (std::find(directions.begin(), directions.end(), d) != directions.end() &&
                   block.neighbour[d.index()] != kNoBlock);
              const double expected =
                  filled ? cell_value({o.x + i, o.y + j, o.z + k}, var, round) : kSentinel;
              ASSERT_EQ(data[layout.index(var, i, j, k)], expected)
                  << "rank " << rank << " block " << block.id << " cell " << i << "," << j << ","
                  << k << " var " << var << " round " << round;
            }
    }
  }
  // Every message sent was received: the exchange leaves nothing in flight.
  EXPECT_EQ(comm.stats().messages_sent, kRounds * halo.messages_per_exchange());
}

INSTANTIATE_TEST_SUITE_P(ModelsThreadsAndOptions, HaloExchangeMpi,
                         ::testing::ValuesIn(exchange_cases()),
                         [](const ::testing::TestParamInfo<ExchangeCase>& info) {
                           return describe(info.param) + "_" + std::to_string(info.index);
                         });

TEST(HaloExchangeMpi, LocalExchangeFillsOnlyGhostsFacingBlocksOfThisRank) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Runtime runtime(runtime_options_for(ExecModel::dataflow, 2));
  Comm comm(runtime, MPI_COMM_WORLD);
  Exec exec(ExecModel::dataflow, runtime);
  const UniformMesh mesh({3, 3, 2}, {3, 2, 2}, 1, rank, ranks);
  const HaloPlan plan(mesh, {});
  HaloExchange halo(plan, 1, comm, exec);
  BlockField u(mesh, runtime, "u", 1);
  const BlockLayout& layout = u.layout();
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    std::fill(u.data(b), u.data(b) + layout.size(), kSentinel);
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) {
          u.data(b)[layout.index(0, i, j, k)] = static_cast<double>(mesh.local_block(b).id);
        }
  }
  halo.exchange_local(u);
  runtime.wait_all();
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    const MeshBlock& block = mesh.local_block(b);
    for (Direction d : halo_directions(HaloShape::faces)) {
      const Box ghosts = layout.ghost_region(d);
      const GlobalBlockId nb = block.neighbour[d.index()];
      const bool local = block.neighbour_local[d.index()] != kNotLocal;
      const double expected = local ? static_cast<double>(nb) : kSentinel;
      for (int k = ghosts.lo.z; k < ghosts.hi.z; ++k)
        for (int j = ghosts.lo.y; j < ghosts.hi.y; ++j)
          for (int i = ghosts.lo.x; i < ghosts.hi.x; ++i) {
            ASSERT_EQ(u.data(b)[layout.index(0, i, j, k)], expected)
                << "rank " << rank << " block " << block.id << " direction " << direction_name(d);
          }
    }
  }
  EXPECT_EQ(comm.stats().messages_sent, 0u);
}

// What an exchange cannot serve is refused: a field with another variable count, and
// fused sections on a plan whose buffers are shared between directions.
TEST(HaloExchangeMpi, RejectsAFieldWithAnotherVariableCountAndFusionWithSharedBuffers) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Runtime runtime(runtime_options_for(ExecModel::dataflow, 1));
  Comm comm(runtime, MPI_COMM_WORLD);
  Exec exec(ExecModel::dataflow, runtime);
  const UniformMesh mesh({2, 2, 2}, {2, 2, 2}, 1, rank, ranks);
  const HaloPlan plan(mesh, {});
  HaloExchange halo(plan, 1, comm, exec);
  BlockField wide(mesh, runtime, "wide", 3);
  EXPECT_THROW(halo.exchange(wide), std::invalid_argument);
  BlockField u(mesh, runtime, "u", 1);
  EXPECT_THROW(halo.exchange(u, HaloFusion{1, 1}), std::invalid_argument);
  // A field without ghost cells: nothing may write ghosts, so no local copies and every
  // axis with receive sections fused.
  BlockField bare(mesh, runtime, "bare", 1, GhostCells::none);
  EXPECT_THROW(halo.exchange(bare), std::invalid_argument);
  EXPECT_THROW(halo.exchange_local(bare), std::invalid_argument);
  const HaloPlan in_place(mesh, {.separate_buffers = true, .copy_local = false});
  HaloExchange bare_halo(in_place, 1, comm, exec);
  if (!in_place.receives().sections.empty()) {
    EXPECT_THROW(bare_halo.exchange(bare, HaloFusion{0, 3}), std::invalid_argument);
  }
  bare_halo.exchange_local(bare);  // no copies: nothing to refuse
}

// Fused packing: the caller's tasks fill the send sections of the fused axes (`packed`)
// and read their receive sections in place (`axes`); the exchange packs and unpacks only
// the others. Several rounds reuse the buffers, so a fill that overtook a send or a
// receive that overtook a reader would show as a wrong value (and as a race under
// ThreadSanitizer). A field without ghost cells is packed from its interior alone.
TEST(HaloExchangeMpi, FusedSectionsAreFilledAndReadByTheCallersTasks) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (auto [model, threads, axes, packed, ghost_cells] :
       {std::tuple{ExecModel::bsp, 1, 7, 7, GhostCells::stored},
        std::tuple{ExecModel::forkjoin, 2, 1, 1, GhostCells::stored},
        std::tuple{ExecModel::dataflow, 1, 6, 6, GhostCells::stored},
        std::tuple{ExecModel::dataflow, 2, 7, 7, GhostCells::stored},
        std::tuple{ExecModel::bsp, 1, 7, 2, GhostCells::none},
        std::tuple{ExecModel::dataflow, 2, 7, 0, GhostCells::none}}) {
    Runtime runtime(runtime_options_for(model, threads));
    Comm comm(runtime, MPI_COMM_WORLD);
    Exec exec(model, runtime);
    const UniformMesh mesh({3, 2, 3}, {4, 3, 2}, 1, rank, ranks);
    const bool ghosts = ghost_cells == GhostCells::stored;
    const HaloPlan plan(mesh, {.send_faces = true, .separate_buffers = true, .copy_local = ghosts});
    HaloExchange halo(plan, kVars, comm, exec);
    BlockField u(mesh, runtime, "u", kVars, ghost_cells);
    const BlockLayout& layout = u.layout();
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b)
      std::fill(u.data(b), u.data(b) + layout.size(), kSentinel);
    const auto on = [](int mask, Direction d) {
      return (mask & (d.offset.x != 0 ? 1 : d.offset.y != 0 ? 2 : 4)) != 0;
    };
    const auto fused = [&, axes](Direction d) { return on(axes, d); };
    std::atomic<int> wrong{0};
    std::atomic<int> checked{0};
    constexpr int kRounds = 4;
    for (int round = 0; round < kRounds; ++round) {
      exec.begin_phase("fill");
      for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
        std::vector<Access> accesses{write(u.interior(b))};
        std::vector<std::pair<Box, double*>> sections;
        for (int s = 0; s < static_cast<int>(plan.sends().sections.size()); ++s) {
          const HaloSection& section = plan.sends().sections[s];
          if (section.block != b || !on(packed, section.direction)) continue;
          accesses.push_back(write(halo.send_handle(s)));
          sections.emplace_back(section.region, halo.send_data(s));
        }
        const Int3 o = mesh.cell_origin(mesh.local_block(b));
        runtime.submit("fill", accesses, [&layout, data = u.data(b), o, round, sections] {
          const Int3 n = layout.cells();
          for (int var = 0; var < kVars; ++var)
            for (int k = 0; k < n.z; ++k)
              for (int j = 0; j < n.y; ++j)
                for (int i = 0; i < n.x; ++i)
                  data[layout.index(var, i, j, k)] =
                      cell_value({o.x + i, o.y + j, o.z + k}, var, round);
          for (const auto& [region, out] : sections) pack_region(layout, data, region, out);
        });
      }
      exec.end_phase();
      halo.exchange(u,
                    HaloFusion{static_cast<std::uint8_t>(packed), static_cast<std::uint8_t>(axes)});
      exec.begin_phase("read");
      // Fused receive sections hold the neighbour's values of this round; the ghosts of
      // the other remote faces were unpacked.
      for (int s = 0; s < static_cast<int>(plan.receives().sections.size()); ++s) {
        const HaloSection& section = plan.receives().sections[s];
        const bool in_place = fused(section.direction);
        const Int3 o = mesh.cell_origin(mesh.local_block(section.block));
        const Access access =
            in_place ? read(halo.receive_handle(s)) : read(u.ghosts(section.block));
        runtime.submit(
            "read", {access},
            [&, in = halo.receive_data(s), data = u.data(section.block), region = section.region, o,
             round, in_place] {
              const Int3 e = region.extent();
              for (int var = 0; var < kVars; ++var)
                for (int k = 0; k < e.z; ++k)
                  for (int j = 0; j < e.y; ++j)
                    for (int i = 0; i < e.x; ++i) {
                      const Int3 c{region.lo.x + i, region.lo.y + j, region.lo.z + k};
                      const double got =
                          in_place ? in[((std::ptrdiff_t{var} * e.z + k) * e.y + j) * e.x + i]
                                   : data[layout.index(var, c.x, c.y, c.z)];
                      if (got != cell_value({o.x + c.x, o.y + c.y, o.z + c.z}, var, round)) ++wrong;
                      ++checked;
                    }
            });
      }
      exec.end_phase();
    }
    runtime.wait_all();
    EXPECT_EQ(wrong.load(), 0) << "rank " << rank << " " << to_string(model) << " axes " << axes;
    if (ranks > 1) {
      EXPECT_GT(checked.load(), 0);
    }
    // The ghosts of fused faces were never written: those sections were read in place.
    for (int s = 0; ghosts && s < static_cast<int>(plan.receives().sections.size()); ++s) {
      const HaloSection& section = plan.receives().sections[s];
      if (!fused(section.direction)) continue;
      EXPECT_EQ(u.data(section.block)[layout.index(0, section.region.lo.x, section.region.lo.y,
                                                   section.region.lo.z)],
                kSentinel);
    }
  }
}

// A staged exchange (NAS MG's comm3: faces in x, y, z stages carrying edges and corners)
// leaves every ghost cell bitwise as the direct exchange of all 26 directions does, on a
// periodic mesh whose axes hold 1, 2 or 3 blocks (a block its own neighbour, two blocks
// each other's on both sides), under every model, with ghosts 1 and 2 deep.
TEST(HaloExchangeMpi, StagedGhostsAreBitwiseThoseOfTheDirectExchange) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  struct Shape {
    Int3 blocks;
    Int3 cells;
    int ghost;
  };
  for (const Shape shape : {Shape{{2, 3, 1}, {3, 4, 2}, 1}, Shape{{3, 2, 2}, {4, 2, 3}, 2},
                            Shape{{4, 4, 4}, {2, 3, 2}, 1}}) {
    for (auto [model, threads] :
         {std::pair{ExecModel::bsp, 1}, std::pair{ExecModel::forkjoin, 2},
          std::pair{ExecModel::dataflow, 1}, std::pair{ExecModel::dataflow, 2}}) {
      Runtime runtime(runtime_options_for(model, threads));
      Comm comm(runtime, MPI_COMM_WORLD);
      Exec exec(model, runtime);
      const UniformMesh mesh(shape.blocks, shape.cells, shape.ghost, rank, ranks,
                             Periodicity::all());
      const HaloPlan direct_plan(
          mesh, {.shape = HaloShape::full, .separate_buffers = true, .copy_per_block = true});
      const HaloPlan staged_plan(mesh, {.shape = HaloShape::full, .staged = true});
      HaloExchange direct(direct_plan, kVars, comm, exec, "direct");
      HaloExchange staged(staged_plan, kVars, comm, exec, "staged");
      BlockField u(mesh, runtime, "u", kVars);
      BlockField w(mesh, runtime, "w", kVars);
      const BlockLayout& layout = u.layout();
      for (int round = 0; round < 2; ++round) {
        for (BlockField* f : {&u, &w}) {
          for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
            // Ghosts start as sentinels, interiors as a function of the global cell.
            std::fill(f->data(b), f->data(b) + layout.size(), kSentinel);
            const Int3 o = mesh.cell_origin(mesh.local_block(b));
            for (int var = 0; var < kVars; ++var)
              for (int k = 0; k < shape.cells.z; ++k)
                for (int j = 0; j < shape.cells.y; ++j)
                  for (int i = 0; i < shape.cells.x; ++i)
                    f->data(b)[layout.index(var, i, j, k)] =
                        cell_value({o.x + i, o.y + j, o.z + k}, var, round);
          }
        }
        direct.exchange(u);
        staged.exchange(w);
        runtime.wait_all();
        for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
          for (std::size_t x = 0; x < layout.size(); ++x) {
            ASSERT_EQ(u.data(b)[x], w.data(b)[x])
                << "rank " << rank << " block " << mesh.local_block(b).id << " offset " << x << " "
                << to_string(model) << " blocks " << shape.blocks.x << shape.blocks.y
                << shape.blocks.z;
          }
        }
      }
      EXPECT_LE(staged.messages_per_exchange(), 6u * mesh.local_block_count());
    }
  }
}

}  // namespace
}  // namespace tessera
