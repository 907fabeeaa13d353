// One block model: a kernel written once against BlockView, driven through GhostExchange
// and the shared accessor names, gives the same bits on a UniformMesh (BlockField +
// HaloExchange) and on an AmrMesh that never adapts, built on the same blocks.

#include <gtest/gtest.h>
#include <mpi.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tessera/amr/mesh.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/block_view.hpp"
#include "tessera/mesh/ghost_exchange.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

constexpr Int3 kBlocks{4, 2, 2};
constexpr Int3 kCells{8, 4, 6};
constexpr int kSteps = 5;

// The kernel: one explicit diffusion step of variable `from` of `in` into variable `to` of
// `out`, reading the face ghosts. Knows nothing of the mesh it runs on.
void diffusion_sweep(BlockView in, int from, BlockView out, int to) {
  const BlockLayout& l = *in.layout;
  const std::ptrdiff_t sy = l.stride_y(), sz = l.stride_z();
  const Int3 n = l.cells();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j) {
      const double* c = in.at(from, 0, j, k);
      double* o = out.at(to, 0, j, k);
      for (int i = 0; i < n.x; ++i) {
        const double* u = c + i;
        o[i] =
            u[0] + 0.125 * ((((((u[-1] + u[1]) + u[-sy]) + u[sy]) + u[-sz]) + u[sz]) - 6.0 * u[0]);
      }
    }
}

double initial_value(std::int64_t x, std::int64_t y, std::int64_t z) {
  return static_cast<double>((x * 7 + y * 13 + z * 29) % 17) / 17.0 + 0.25;
}

std::int64_t global_offset(std::int64_t x, std::int64_t y, std::int64_t z) {
  const std::int64_t nx = std::int64_t{kBlocks.x} * kCells.x;
  const std::int64_t ny = std::int64_t{kBlocks.y} * kCells.y;
  return x + nx * (y + ny * z);
}

// What the sweep loop needs from a mesh's two data sets (a and b): the same calls on both
// meshes, bound here so that the loop below is written once.
struct DataSet {
  std::function<BlockView(LocalBlockIndex)> view;
  int var = 0;
  std::function<Handle(LocalBlockIndex)> interior;
  std::function<std::span<const Handle>(LocalBlockIndex)> ghosts;
  GhostExchange* exchange = nullptr;
};

// Fills data set `a` with initial_value at each cell's global index, runs kSteps sweeps
// ping-ponging between a and b, and returns the final field over the whole domain (every
// rank's blocks, summed over ranks: each cell has one owner, the others add 0).
template <class Mesh>
std::vector<double> run(Mesh& mesh, Runtime& runtime, Exec& exec, DataSet a, DataSet b) {
  exec.barrier();
  for (LocalBlockIndex blk = 0; blk < mesh.local_block_count(); ++blk) {
    const auto origin = mesh.cell_origin(blk);
    BlockView v = a.view(blk);
    for (int k = 0; k < kCells.z; ++k)
      for (int j = 0; j < kCells.y; ++j)
        for (int i = 0; i < kCells.x; ++i)
          v(a.var, i, j, k) = initial_value(origin[0] + i, origin[1] + j, origin[2] + k);
  }
  DataSet* from = &a;
  DataSet* to = &b;
  for (int step = 0; step < kSteps; ++step) {
    from->exchange->submit();
    for (LocalBlockIndex blk = 0; blk < mesh.local_block_count(); ++blk) {
      std::vector<Access> acc{read(from->interior(blk)), write(to->interior(blk))};
      for (Handle h : from->ghosts(blk)) acc.push_back(read(h));
      runtime.submit(
          "diffusion", std::span<const Access>(acc),
          [in = from->view(blk), fv = from->var, out = to->view(blk), tv = to->var] {
            diffusion_sweep(in, fv, out, tv);
          },
          TaskAttributes(mesh.is_skeleton(blk) ? exec.skeleton_priority() : Priority::normal));
    }
    exec.end_phase();
    std::swap(from, to);
  }
  exec.barrier();
  std::vector<double> global(static_cast<std::size_t>(product(kBlocks) * product(kCells)), 0.0);
  for (LocalBlockIndex blk = 0; blk < mesh.local_block_count(); ++blk) {
    const auto origin = mesh.cell_origin(blk);
    const BlockView v = from->view(blk);
    for (int k = 0; k < kCells.z; ++k)
      for (int j = 0; j < kCells.y; ++j)
        for (int i = 0; i < kCells.x; ++i)
          global[static_cast<std::size_t>(
              global_offset(origin[0] + i, origin[1] + j, origin[2] + k))] = v(from->var, i, j, k);
  }
  MPI_Allreduce(MPI_IN_PLACE, global.data(), static_cast<int>(global.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  return global;
}

std::vector<double> run_uniform(ExecModel model) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Runtime runtime{RuntimeOptions{.threads = 2}};
  Comm comm{runtime, MPI_COMM_WORLD};
  Exec exec{model, runtime};
  const UniformMesh mesh(kBlocks, kCells, 1, rank, ranks, Periodicity::all());
  const HaloPlan plan(mesh, {});
  HaloExchange halo(plan, 1, comm, exec);
  BlockField u(mesh, runtime, "u", 1), v(mesh, runtime, "v", 1);
  FieldGhostExchange u_ghosts(halo, u), v_ghosts(halo, v);
  const auto data_set = [](BlockField& f, GhostExchange& ghosts) {
    return DataSet{[&f](LocalBlockIndex b) { return f.view(b); }, 0,
                   [&f](LocalBlockIndex b) { return f.interior(b); },
                   [&f](LocalBlockIndex b) { return f.ghost_handles(b); }, &ghosts};
  };
  return run(mesh, runtime, exec, data_set(u, u_ghosts), data_set(v, v_ghosts));
}

std::vector<double> run_adaptive(ExecModel model) {
  Runtime runtime{RuntimeOptions{.threads = 2}};
  Comm comm{runtime, MPI_COMM_WORLD};
  Exec exec{model, runtime};
  AmrMeshOptions options;
  options.root_blocks = {kBlocks.x, kBlocks.y, kBlocks.z};
  options.periodic = {true, true, true};
  options.shape.cells = {kCells.x, kCells.y, kCells.z};
  options.shape.num_vars = 2;  // u and v, one group each
  options.shape.group_size = 1;
  AmrMesh mesh(comm, exec, options);
  AmrGhostExchange u_ghosts(mesh, 0), v_ghosts(mesh, 1);
  const auto data_set = [&mesh](int group, GhostExchange& ghosts) {
    return DataSet{[&mesh](LocalBlockIndex b) { return mesh.view(b); }, group,
                   [&mesh, group](LocalBlockIndex b) { return mesh.interior(b, group); },
                   [&mesh, group](LocalBlockIndex b) { return mesh.ghost_handles(b, group); },
                   &ghosts};
  };
  return run(mesh, runtime, exec, data_set(0, u_ghosts), data_set(1, v_ghosts));
}

class BlockModelTest : public ::testing::TestWithParam<ExecModel> {};

TEST_P(BlockModelTest, OneKernelGivesTheSameBitsOnUniformAndAdaptiveMeshes) {
  const std::vector<double> uniform = run_uniform(GetParam());
  const std::vector<double> adaptive = run_adaptive(GetParam());
  ASSERT_EQ(uniform.size(), adaptive.size());
  // The sweeps changed the field (a test that compares two untouched copies proves nothing).
  std::size_t changed = 0;
  for (std::int64_t z = 0; z < std::int64_t{kBlocks.z} * kCells.z; ++z)
    for (std::int64_t y = 0; y < std::int64_t{kBlocks.y} * kCells.y; ++y)
      for (std::int64_t x = 0; x < std::int64_t{kBlocks.x} * kCells.x; ++x) {
        const auto c = static_cast<std::size_t>(global_offset(x, y, z));
        changed += uniform[c] != initial_value(x, y, z);
        ASSERT_EQ(std::bit_cast<std::uint64_t>(uniform[c]),
                  std::bit_cast<std::uint64_t>(adaptive[c]))
            << "cell " << x << "," << y << "," << z;
      }
  EXPECT_GT(changed, uniform.size() / 2);
}

INSTANTIATE_TEST_SUITE_P(Models, BlockModelTest,
                         ::testing::Values(ExecModel::bsp, ExecModel::forkjoin,
                                           ExecModel::dataflow));

}  // namespace
}  // namespace tessera
