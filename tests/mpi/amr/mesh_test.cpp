// AmrMesh data movement as tasks: splitting keeps every sum exactly, merging undoes a
// split, and load balancing moves block contents intact.
#include <gtest/gtest.h>
#include <mpi.h>

#include <bit>

#include "mesh_fixture.hpp"
#include "tessera/comm/exact_sum.hpp"

namespace tessera {
namespace {

using amr_test::cell_value;
using amr_test::extent;
using amr_test::fill_positions;
using amr_test::first_cell;
using amr_test::ghost_origin_index;
using amr_test::MeshRuntime;

AmrMeshOptions small_mesh(std::array<int, 3> roots) {
  AmrMeshOptions options;
  options.root_blocks = roots;
  options.shape.cells = {4, 2, 2};
  options.shape.num_vars = 2;
  options.shape.group_size = 1;
  return options;
}

// Exact global sum of variable v over all interior cells (main thread, no tasks running).
double global_sum(AmrMesh& mesh, int v) {
  const BlockShape& s = mesh.shape();
  ExactSum sum;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b)
    for (int i = 1; i <= s.cells[0]; ++i)
      for (int j = 1; j <= s.cells[1]; ++j)
        for (int k = 1; k <= s.cells[2]; ++k)
          sum.add(mesh.data(b)[ghost_origin_index(s, v, i, j, k)]);
  sum.normalize();
  auto& limbs = sum.limbs();
  MPI_Allreduce(MPI_IN_PLACE, limbs.data(), static_cast<int>(limbs.size()), MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  return sum.value();
}

TEST(MeshTest, SplitKeepsSumsExactlyAndMergeRestoresTheParent) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, small_mesh({1, 2, 1}));
  fill_positions(mesh);
  const double before[2] = {global_sum(mesh, 0), global_sum(mesh, 1)};
  std::vector<std::vector<double>> parents;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const double* d = mesh.data(b);
    parents.emplace_back(d, d + mesh.layout().size());
  }

  const AdaptCounts split =
      mesh.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(mesh.local_block_count()), 1));
  EXPECT_EQ(split.split, static_cast<std::int64_t>(parents.size()));
  rt.exec.barrier();
  for (int v = 0; v < 2; ++v)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(global_sum(mesh, v)),
              std::bit_cast<std::uint64_t>(before[v]));
  // Child c's cell (i, j, k) holds an eighth of the parent cell covering it.
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const int c = b % 8;
    const std::vector<double>& parent = parents[static_cast<std::size_t>(b / 8)];
    for (int v = 0; v < 2; ++v)
      for (int i = 1; i <= s.cells[0]; ++i)
        for (int j = 1; j <= s.cells[1]; ++j)
          for (int k = 1; k <= s.cells[2]; ++k) {
            const int pi = (c % 2) * s.cells[0] / 2 + (i + 1) / 2;
            const int pj = (c / 2 % 2) * s.cells[1] / 2 + (j + 1) / 2;
            const int pk = (c / 4) * s.cells[2] / 2 + (k + 1) / 2;
            ASSERT_EQ(mesh.data(b)[ghost_origin_index(s, v, i, j, k)],
                      parent[ghost_origin_index(s, v, pi, pj, pk)] / 8.0);
          }
  }

  const AdaptCounts merged =
      mesh.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(mesh.local_block_count()), -1));
  EXPECT_EQ(merged.merged, static_cast<std::int64_t>(parents.size()));
  rt.exec.barrier();
  ASSERT_EQ(static_cast<std::size_t>(mesh.local_block_count()), parents.size());
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b)
    for (int v = 0; v < 2; ++v)
      for (int i = 1; i <= s.cells[0]; ++i)
        for (int j = 1; j <= s.cells[1]; ++j)
          for (int k = 1; k <= s.cells[2]; ++k)
            ASSERT_EQ(mesh.data(b)[ghost_origin_index(s, v, i, j, k)],
                      parents[static_cast<std::size_t>(b)][ghost_origin_index(s, v, i, j, k)]);
}

TEST(MeshTest, RebalanceMovesBlockContentsIntact) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, small_mesh({4, 1, 1}));
  // Rank 0 refines its blocks, so the partition becomes uneven.
  mesh.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(mesh.local_block_count()),
                                      rt.comm.rank() == 0 ? 1 : 0));
  rt.exec.barrier();
  fill_positions(mesh);
  const std::int64_t moved = mesh.rebalance();
  EXPECT_EQ(moved > 0, rt.comm.size() > 1);
  rt.exec.barrier();
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const auto base = first_cell(s, mesh.place(b));
    for (int v = 0; v < 2; ++v)
      for (int i = 1; i <= s.cells[0]; ++i)
        for (int j = 1; j <= s.cells[1]; ++j)
          for (int k = 1; k <= s.cells[2]; ++k)
            ASSERT_EQ(mesh.data(b)[ghost_origin_index(s, v, i, j, k)],
                      cell_value(mesh.place(b).level, base[0] + i - 1, base[1] + j - 1,
                                 base[2] + k - 1, v))
                << "block " << b;
  }
}

}  // namespace
}  // namespace tessera
