// Per-volume level jumps on an adaptive mesh with two ghost layers: ghosts from a finer
// neighbour are volume averages, ghosts from a coarser one a conservative limited-linear
// prolongation (exact for linear data away from the coarse block's tangential edges); the
// flux correction replaces a coarse face flux by the mean of the fine ones; balanced_marks
// keeps 2:1 balance; per-volume split and merge conserve the volume integral exactly.
#include <gtest/gtest.h>
#include <mpi.h>

#include <bit>
#include <cmath>

#include "mesh_fixture.hpp"
#include "tessera/amr/marking.hpp"
#include "tessera/comm/exact_sum.hpp"

namespace tessera {
namespace {

using amr_test::extent;
using amr_test::first_cell;
using amr_test::ghost_origin_index;
using amr_test::MeshRuntime;
using amr_test::refine_around_centre;

AmrMeshOptions wide_mesh() {
  AmrMeshOptions o;
  o.root_blocks = {2, 2, 2};
  o.shape.cells = {4, 4, 4};
  o.shape.ghost = {2, 2, 2};
  o.shape.num_vars = 1;
  o.shape.group_size = 1;
  o.halo.level_jumps = LevelJumpRule::per_volume;
  o.corrected_vars = 1;
  return o;
}

// A linear function of the cell centre (in level-0 cell widths): dyadic, so every average
// and every prolonged value of it is exact.
double linear(int level, std::array<std::int64_t, 3> g) {
  double x[3];
  for (int a = 0; a < 3; ++a) x[a] = std::ldexp(static_cast<double>(2 * g[a] + 1), -level - 1);
  return 3 + 2 * x[0] + 5 * x[1] - 7 * x[2];
}

// Global index (on the block's level) of cell (i, j, k) of a block, ghosts included.
std::array<std::int64_t, 3> global_of(const BlockShape& s, const BlockPlace& p, int i, int j,
                                      int k) {
  const auto base = first_cell(s, p);
  return {base[0] + i - s.ghost[0], base[1] + j - s.ghost[1], base[2] + k - s.ghost[2]};
}

void fill_linear(AmrMesh& mesh) {
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b)
    for (int i = 0; i < extent(s, 0); ++i)
      for (int j = 0; j < extent(s, 1); ++j)
        for (int k = 0; k < extent(s, 2); ++k) {
          const bool interior = i >= s.ghost[0] && i < s.ghost[0] + s.cells[0] && j >= s.ghost[1] &&
                                j < s.ghost[1] + s.cells[1] && k >= s.ghost[2] &&
                                k < s.ghost[2] + s.cells[2];
          mesh.data(b)[ghost_origin_index(s, 0, i, j, k)] =
              interior ? linear(mesh.place(b).level, global_of(s, mesh.place(b), i, j, k))
                       : std::nan("");
        }
}

double global_integral(AmrMesh& mesh) {
  const BlockShape& s = mesh.shape();
  ExactSum sum;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b)
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k)
          sum.add(std::ldexp(
              mesh.data(
                  b)[ghost_origin_index(s, 0, i + s.ghost[0], j + s.ghost[1], k + s.ghost[2])],
              -3 * mesh.place(b).level));
  sum.normalize();
  auto& limbs = sum.limbs();
  MPI_Allreduce(MPI_IN_PLACE, limbs.data(), static_cast<int>(limbs.size()), MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  return sum.value();
}

TEST(LevelJumpTest, GhostsAverageFromFinerAndProlongConservativelyFromCoarser) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, wide_mesh());
  fill_linear(mesh);
  refine_around_centre(mesh);
  rt.exec.barrier();
  const std::vector<std::int64_t> levels = mesh.forest().global_level_counts(2);
  ASSERT_GT(levels[2], 0);
  fill_linear(mesh);
  mesh.exchange(0);
  rt.exec.barrier();

  const BlockShape& s = mesh.shape();
  const Forest& forest = mesh.forest();
  std::int64_t checked[3] = {0, 0, 0};  // same/finer exact, prolonged exact, prolonged groups
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const BlockPlace& me = mesh.place(b);
    const double* d = mesh.data(b);
    for (int f = 0; f < kBlockFaces; ++f) {
      const FaceNeighbors& nb = forest.neighbors(b, f);
      if (nb.kind == FaceKind::boundary) continue;
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      const bool high = f % 2 == 1;
      const int g = s.ghost[axis], n = s.cells[axis];
      for (int depth = 0; depth < g; ++depth)
        for (int u = 0; u < s.cells[t0]; ++u)
          for (int w = 0; w < s.cells[t1]; ++w) {
            int c[3];
            c[axis] = high ? g + n + depth : g - 1 - depth;
            c[t0] = s.ghost[t0] + u;
            c[t1] = s.ghost[t1] + w;
            const double value = d[ghost_origin_index(s, 0, c[0], c[1], c[2])];
            const auto gi = global_of(s, me, c[0], c[1], c[2]);
            if (nb.kind != FaceKind::coarser) {
              ASSERT_EQ(value, linear(me.level, gi)) << "face " << f << " block " << b;
              ++checked[0];
              continue;
            }
            // From a coarser neighbour: exact where the coarse cell has neighbours on both
            // tangential sides inside its block.
            const auto coarse_base = first_cell(s, forest.place(nb.blocks[0]));
            const std::int64_t ct0 = gi[t0] >> 1, ct1 = gi[t1] >> 1;
            const bool edge = ct0 == coarse_base[t0] || ct0 == coarse_base[t0] + s.cells[t0] - 1 ||
                              ct1 == coarse_base[t1] || ct1 == coarse_base[t1] + s.cells[t1] - 1;
            if (!edge) {
              ASSERT_EQ(value, linear(me.level, gi)) << "prolonged, face " << f;
              ++checked[1];
            }
            // Every 2x2x2 group averages to its coarse cell.
            if (depth % 2 == 0 && u % 2 == 0 && w % 2 == 0) {
              double sum = 0;
              for (int dd = 0; dd < 2; ++dd)
                for (int du = 0; du < 2; ++du)
                  for (int dw = 0; dw < 2; ++dw) {
                    int e[3];
                    e[axis] = high ? g + n + depth + dd : g - 1 - depth - dd;
                    e[t0] = c[t0] + du;
                    e[t1] = c[t1] + dw;
                    sum += d[ghost_origin_index(s, 0, e[0], e[1], e[2])];
                  }
              std::array<std::int64_t, 3> coarse{gi[0] >> 1, gi[1] >> 1, gi[2] >> 1};
              ASSERT_EQ(sum / 8, linear(me.level - 1, coarse)) << "group average, face " << f;
              ++checked[2];
            }
          }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, checked, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(checked[0], 0);
  EXPECT_GT(checked[1], 0);
  EXPECT_GT(checked[2], 0);
}

TEST(LevelJumpTest, FluxCorrectionTakesTheMeanOfTheFineFluxes) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, wide_mesh());
  fill_linear(mesh);
  refine_around_centre(mesh);
  rt.exec.barrier();
  const BlockShape& s = mesh.shape();
  FluxCorrection& flux = *mesh.flux_correction();
  const FluxRegister& layout = flux.layout();
  // Face flux of a block at tangential global face cell (g0, g1): small integers per level.
  const auto flux_value = [](int level, std::int64_t g0, std::int64_t g1) {
    return static_cast<double>((3 * g0 + 5 * g1 + level) % 7 + 1);
  };
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    double* d = mesh.data(b);
    for (std::size_t c = 0; c < s.layout().size(); ++c) d[c] = 0;
    double* reg = flux.fluxes(b);
    if (reg == nullptr) continue;
    const auto base = first_cell(s, mesh.place(b));
    for (int f = 0; f < kBlockFaces; ++f) {
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      for (int u = 0; u < s.cells[t0]; ++u)
        for (int w = 0; w < s.cells[t1]; ++w)
          reg[layout.index(f, 0, u, w)] =
              flux_value(mesh.place(b).level, base[t0] + u, base[t1] + w);
    }
  }
  const double step = 0.5;
  flux.submit(0, 0, &step, 1.0, {1.0, 1.0, 1.0}, rt.exec);
  rt.exec.barrier();

  const Forest& forest = mesh.forest();
  std::int64_t corrected = 0;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const BlockPlace& me = mesh.place(b);
    const auto base = first_cell(s, me);
    std::vector<double> expected(s.layout().size(), 0.0);
    for (int f = 0; f < kBlockFaces; ++f) {
      if (forest.neighbors(b, f).kind != FaceKind::finer) continue;
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      const double coefficient = std::ldexp(step, me.level);  // step / (1 * 2^-level)
      const double sign = f % 2 == 1 ? 1.0 : -1.0;
      for (int u = 0; u < s.cells[t0]; ++u)
        for (int w = 0; w < s.cells[t1]; ++w) {
          const std::int64_t f0 = 2 * (base[t0] + u), f1 = 2 * (base[t1] + w);
          const double mean =
              (flux_value(me.level + 1, f0, f1) + flux_value(me.level + 1, f0 + 1, f1) +
               flux_value(me.level + 1, f0, f1 + 1) + flux_value(me.level + 1, f0 + 1, f1 + 1)) /
              4;
          const double own = flux_value(me.level, base[t0] + u, base[t1] + w);
          int c[3];
          c[axis] = f % 2 == 1 ? s.ghost[axis] + s.cells[axis] - 1 : s.ghost[axis];
          c[t0] = s.ghost[t0] + u;
          c[t1] = s.ghost[t1] + w;
          expected[ghost_origin_index(s, 0, c[0], c[1], c[2])] -= sign * coefficient * (mean - own);
          ++corrected;
        }
    }
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k) {
          const std::size_t c =
              ghost_origin_index(s, 0, i + s.ghost[0], j + s.ghost[1], k + s.ghost[2]);
          ASSERT_EQ(mesh.data(b)[c], expected[c]) << "block " << b << " cell " << i << j << k;
        }
  }
  MPI_Allreduce(MPI_IN_PLACE, &corrected, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(corrected, 0);
}

TEST(LevelJumpTest, PerVolumeSplitAndMergeConserveTheIntegral) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, wide_mesh());
  fill_linear(mesh);
  rt.exec.barrier();
  const double before = global_integral(mesh);
  refine_around_centre(mesh);
  rt.exec.barrier();
  EXPECT_EQ(std::bit_cast<std::uint64_t>(global_integral(mesh)),
            std::bit_cast<std::uint64_t>(before));
  // Merge every family back (two rounds); the integral stays.
  for (int round = 0; round < 2; ++round) {
    mesh.exchange(0);
    const std::vector<std::int8_t> wants(static_cast<std::size_t>(mesh.local_block_count()), -1);
    const std::vector<std::int8_t> marks = balanced_marks(mesh.forest(), wants, 2);
    mesh.adapt(marks);
    EXPECT_TRUE(mesh.forest().is_face_balanced());
    mesh.rebalance();
    rt.exec.barrier();
    EXPECT_EQ(std::bit_cast<std::uint64_t>(global_integral(mesh)),
              std::bit_cast<std::uint64_t>(before));
  }
  EXPECT_EQ(mesh.forest().global_count(), 8);
}

}  // namespace
}  // namespace tessera
