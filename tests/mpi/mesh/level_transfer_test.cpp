// Restriction and prolongation between the levels of a periodic hierarchy over real MPI,
// under every execution model and with a recorded graph: each coarse (fine) cell gets what
// a serial computation on the whole periodic grid gives, including across block, rank and
// periodic boundaries and on coarse levels that live on fewer ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/level_hierarchy.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

int wrap(int i, int n) {
  return ((i % n) + n) % n;
}

double fine_value(Int3 g) {
  return 1.0 + g.x + 100.0 * g.y + 10000.0 * g.z;
}
double coarse_value(Int3 g) {
  return 3.0 + 7.0 * g.x + 50.0 * g.y + 900.0 * g.z;
}

// Reads the fine cells 2J .. 2J + 2 (the + side ghost at a block's end).
void restriction(ConstGridView f, GridView c, Int3 n) {
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        c(i, j, k) = f(2 * i + 2, 2 * j, 2 * k) + 3.0 * f(2 * i, 2 * j + 2, 2 * k) +
                     7.0 * f(2 * i, 2 * j, 2 * k + 2) + 11.0 * f(2 * i + 1, 2 * j + 1, 2 * k + 1);
      }
}

int floor_half(int i) {
  return i >= 0 ? i / 2 : -((-i + 1) / 2);
}

// Reads the coarse cells one beyond the covered ones on both sides.
void prolongation(ConstGridView c, GridView f, Int3 n) {
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        const int a = floor_half(i - 1), b = floor_half(j - 1), d = floor_half(k - 1);
        f(i, j, k) += c(a, b, d) + 5.0 * c(a + 1, b + 1, d + 1);
      }
}

struct TransferCase {
  ExecModel model;
  int threads;
  bool record;
  bool periodic = true;
};

class LevelTransferMpi : public ::testing::TestWithParam<TransferCase> {};

TEST_P(LevelTransferMpi, RestrictionAndProlongationMatchTheSerialPeriodicComputation) {
  const TransferCase& c = GetParam();
  Runtime runtime(runtime_options_for(c.model, c.threads));
  Comm comm(runtime, MPI_COMM_WORLD);
  Exec exec(c.model, runtime);
  // 16^3 cells in 4^3 tiles: 64, 8, 1 and 1 blocks on levels 0..3.
  const HierarchySpec spec{
      .cells = {16, 16, 16},
      .block_cells = {4, 4, 4},
      .levels = 4,
      .periodic = c.periodic ? Periodicity::all() : Periodicity{},
      .halo = {.shape = HaloShape::full, .separate_buffers = true, .copy_per_block = true}};
  LevelHierarchy h(spec, comm, exec);
  LevelField u(h, runtime, "u");
  LevelField r(h, runtime, "r");
  for (int level = 0; level < h.levels(); ++level) {
    const UniformMesh& mesh = h.mesh(level);
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      const Int3 o = mesh.cell_origin(mesh.local_block(b));
      const GridView uv = block_view(u[level].layout(), u[level].data(b));
      const GridView rv = block_view(r[level].layout(), r[level].data(b));
      const Int3 n = mesh.block_cells();
      for (int k = 0; k < n.z; ++k)
        for (int j = 0; j < n.y; ++j)
          for (int i = 0; i < n.x; ++i) {
            const Int3 g{o.x + i, o.y + j, o.z + k};
            uv(i, j, k) = level == 0 ? fine_value(g) : coarse_value(g);
            rv(i, j, k) = 0.0;
          }
    }
  }
  // Restrict u from level 0 down into r on every coarser level (r[l+1] from u[l] on level 0,
  // r[l] after), and prolong u of level l+1 into r[l]'s... kept simple: per level pair,
  // restrict u[l] -> r[l+1] and prolong u[l+1] -> u[l]'s copy in r[l] (level 0 only).
  const auto submit_all = [&] {
    for (int level = 0; level + 1 < h.levels(); ++level) {
      h.halo(level).exchange(u[level]);
      h.transfer(level).restrict_field(u[level], r[level + 1], restriction);
      h.halo(level + 1).exchange(u[level + 1]);
      h.transfer(level).prolong_field(u[level + 1], r[level], prolongation);
    }
  };
  constexpr int kRounds = 2;
  if (c.record) {
    runtime.begin_recording();
    submit_all();
    const IterationGraph graph = runtime.end_recording();
    runtime.replay(graph, 0, kRounds);
  } else {
    for (int round = 0; round < kRounds; ++round) submit_all();
    runtime.wait_all();
  }

  for (int level = 0; level < h.levels(); ++level) {
    const UniformMesh& mesh = h.mesh(level);
    const Int3 cells = mesh.cells();
    const auto u_at = [&](int l, Int3 g) {
      const Int3 n = h.mesh(l).cells();
      // Without periodicity the ghosts outside the domain are never written: still 0.
      if (!c.periodic && !Box{{0, 0, 0}, n}.contains(g)) return 0.0;
      const Int3 w{wrap(g.x, n.x), wrap(g.y, n.y), wrap(g.z, n.z)};
      return l == 0 ? fine_value(w) : coarse_value(w);
    };
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      const Int3 o = mesh.cell_origin(mesh.local_block(b));
      const ConstGridView rv = block_view(r[level].layout(), r[level].data(b));
      const Int3 n = mesh.block_cells();
      for (int k = 0; k < n.z; ++k)
        for (int j = 0; j < n.y; ++j)
          for (int i = 0; i < n.x; ++i) {
            const Int3 g{o.x + i, o.y + j, o.z + k};
            double expected = 0.0;
            if (level > 0) {  // restricted from level - 1 (written, not accumulated)
              const int l = level - 1;
              expected = u_at(l, {2 * g.x + 2, 2 * g.y, 2 * g.z}) +
                         3.0 * u_at(l, {2 * g.x, 2 * g.y + 2, 2 * g.z}) +
                         7.0 * u_at(l, {2 * g.x, 2 * g.y, 2 * g.z + 2}) +
                         11.0 * u_at(l, {2 * g.x + 1, 2 * g.y + 1, 2 * g.z + 1});
            }
            if (level + 1 < h.levels()) {  // prolonged from level + 1, accumulated per round
              const Int3 a{floor_half(g.x - 1), floor_half(g.y - 1), floor_half(g.z - 1)};
              const double add =
                  u_at(level + 1, a) + 5.0 * u_at(level + 1, {a.x + 1, a.y + 1, a.z + 1});
              // Level 0's r starts at 0; a coarser level's r is overwritten by the
              // restriction first in every round, then gets one prolongation.
              expected = level == 0 ? kRounds * add : expected + add;
            }
            ASSERT_EQ(rv(i, j, k), expected)
                << "level " << level << " cell " << g.x << "," << g.y << "," << g.z << " of "
                << cells.x << " rank " << comm.rank();
          }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ModelsThreadsAndRecording, LevelTransferMpi,
                         ::testing::Values(TransferCase{ExecModel::bsp, 1, false},
                                           TransferCase{ExecModel::forkjoin, 2, false},
                                           TransferCase{ExecModel::dataflow, 1, false},
                                           TransferCase{ExecModel::dataflow, 2, false},
                                           TransferCase{ExecModel::dataflow, 2, true},
                                           TransferCase{ExecModel::bsp, 1, false, false},
                                           TransferCase{ExecModel::dataflow, 2, true, false}),
                         [](const ::testing::TestParamInfo<TransferCase>& info) {
                           return std::string(to_string(info.param.model)) + "_threads" +
                                  std::to_string(info.param.threads) +
                                  (info.param.record ? "_replayed" : "") +
                                  (info.param.periodic ? "" : "_bounded");
                         });

TEST(LevelTransferMpi, WithFineGhostsTheKernelWritesTheGhostLayerAndEachBlockIsChained) {
  Runtime runtime(runtime_options_for(ExecModel::dataflow, 2));
  Comm comm(runtime, MPI_COMM_WORLD);
  Exec exec(ExecModel::dataflow, runtime);
  const HierarchySpec spec{.cells = {8, 8, 8},
                           .block_cells = {2, 2, 2},
                           .levels = 2,
                           .periodic = Periodicity::all(),
                           .halo = {.shape = HaloShape::full, .separate_buffers = true}};
  LevelHierarchy h(spec, comm, exec);
  LevelField u(h, runtime, "u");
  const UniformMesh& coarse = h.mesh(1);
  for (LocalBlockIndex b = 0; b < coarse.local_block_count(); ++b) {
    const Int3 o = coarse.cell_origin(coarse.local_block(b));
    const GridView v = block_view(u[1].layout(), u[1].data(b));
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) v(i, j, k) = coarse_value({o.x + i, o.y + j, o.z + k});
  }
  h.halo(1).exchange(u[1]);
  int chained = 0;
  h.transfer(0).prolong_field(
      u[1], u[0],
      [](ConstGridView c, GridView f, Int3 n) {
        // prolongation() extended to the ghost layer [-1, n]: it reads the coarse cells
        // one beyond the covered ones, as the contract allows.
        for (int k = -1; k <= n.z; ++k)
          for (int j = -1; j <= n.y; ++j)
            for (int i = -1; i <= n.x; ++i) {
              const int a = floor_half(i - 1), b = floor_half(j - 1), d = floor_half(k - 1);
              f(i, j, k) += c(a, b, d) + 5.0 * c(a + 1, b + 1, d + 1);
            }
      },
      /*fine_ghosts=*/true, [&](LocalBlockIndex) { ++chained; });
  runtime.wait_all();
  EXPECT_EQ(chained, h.mesh(0).local_block_count());
  const UniformMesh& fine = h.mesh(0);
  for (LocalBlockIndex b = 0; b < fine.local_block_count(); ++b) {
    const Int3 o = fine.cell_origin(fine.local_block(b));
    const ConstGridView f = block_view(u[0].layout(), u[0].data(b));
    for (int k = -1; k <= 2; ++k)
      for (int j = -1; j <= 2; ++j)
        for (int i = -1; i <= 2; ++i) {
          const Int3 co{o.x / 2, o.y / 2, o.z / 2};
          const Int3 a{co.x + floor_half(i - 1), co.y + floor_half(j - 1),
                       co.z + floor_half(k - 1)};
          const auto at = [](Int3 c) {
            return coarse_value({wrap(c.x, 4), wrap(c.y, 4), wrap(c.z, 4)});
          };
          ASSERT_EQ(f(i, j, k), at(a) + 5.0 * at({a.x + 1, a.y + 1, a.z + 1}))
              << "rank " << comm.rank() << " block " << fine.local_block(b).id << " cell " << i
              << "," << j << "," << k;
        }
  }
}

TEST(LevelTransferMpi, RejectsLevelsThatAreNotAHalving) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Runtime runtime(runtime_options_for(ExecModel::dataflow, 1));
  Comm comm(runtime, MPI_COMM_WORLD);
  Exec exec(ExecModel::dataflow, runtime);
  const UniformMesh fine({4, 4, 4}, {4, 4, 4}, 1, rank, ranks);
  const UniformMesh same({4, 4, 4}, {4, 4, 4}, 1, rank, ranks);
  const UniformMesh quarter({1, 1, 1}, {4, 4, 4}, 1, rank, ranks);
  EXPECT_THROW(LevelTransfer(fine, same, 1, comm, exec), std::invalid_argument);
  EXPECT_THROW(LevelTransfer(fine, quarter, 1, comm, exec), std::invalid_argument);
}

}  // namespace
}  // namespace tessera
