// AmrHalo with several ghost layers and per-face domain boundaries: after an exchange every
// face ghost cell at depth d holds the neighbour's cell d layers beyond the face (wrapping
// around periodic axes), the adjacent interior cell at an outflow face, and the mirrored
// interior cell with the normal component negated at a reflecting face; a flat axis (2-D)
// exchanges nothing. Checked on on-rank copies and messages, with every message option.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <limits>

#include "mesh_fixture.hpp"

namespace tessera {
namespace {

using amr_test::cell_value;
using amr_test::extent;
using amr_test::ghost_origin_index;
using amr_test::MeshRuntime;

// Fills interior cells with cell_value of their global index and every ghost with NaN.
void fill_wide(AmrMesh& mesh) {
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    double* data = mesh.data(b);
    const auto base = amr_test::first_cell(s, mesh.place(b));
    for (int v = 0; v < s.num_vars; ++v)
      for (int i = 0; i < extent(s, 0); ++i)
        for (int j = 0; j < extent(s, 1); ++j)
          for (int k = 0; k < extent(s, 2); ++k) {
            const int c[3] = {i - s.ghost[0], j - s.ghost[1], k - s.ghost[2]};
            bool interior = true;
            for (int a = 0; a < 3; ++a) interior = interior && c[a] >= 0 && c[a] < s.cells[a];
            data[ghost_origin_index(s, v, i, j, k)] =
                interior ? cell_value(0, base[0] + c[0], base[1] + c[1], base[2] + c[2], v)
                         : std::numeric_limits<double>::quiet_NaN();
          }
  }
}

// Checks every face ghost; returns how many were checked on this rank.
std::int64_t check_wide(AmrMesh& mesh, const AmrMeshOptions& o) {
  const BlockShape& s = mesh.shape();
  std::int64_t total[3];
  for (int a = 0; a < 3; ++a) total[a] = std::int64_t{o.root_blocks[a]} * s.cells[a];
  std::int64_t checked = 0;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const double* data = mesh.data(b);
    const auto base = amr_test::first_cell(s, mesh.place(b));
    for (int f = 0; f < kBlockFaces; ++f) {
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      const bool high = f % 2 == 1;
      for (int d = 0; d < s.ghost[axis]; ++d)
        for (int u = 0; u < s.cells[t0]; ++u)
          for (int w = 0; w < s.cells[t1]; ++w)
            for (int v = 0; v < s.num_vars; ++v) {
              int c[3];  // raw index of the ghost cell
              c[axis] = high ? s.ghost[axis] + s.cells[axis] + d : s.ghost[axis] - 1 - d;
              c[t0] = s.ghost[t0] + u;
              c[t1] = s.ghost[t1] + w;
              std::int64_t g[3];
              for (int a = 0; a < 3; ++a) g[a] = base[a] + c[a] - s.ghost[a];
              double sign = 1.0;
              if (g[axis] < 0 || g[axis] >= total[axis]) {
                const std::int64_t edge = high ? total[axis] - 1 : 0;
                if (o.periodic[axis]) {
                  g[axis] = (g[axis] + total[axis]) % total[axis];
                } else if (o.halo.boundary[f] == BoundaryKind::outflow) {
                  g[axis] = edge;
                } else {
                  g[axis] = high ? 2 * total[axis] - 1 - g[axis] : -1 - g[axis];
                  if (o.halo.vector_axis[static_cast<std::size_t>(v)] == axis) sign = -1.0;
                  (void)edge;
                }
              }
              const double want = sign * cell_value(0, g[0], g[1], g[2], v);
              EXPECT_EQ(data[ghost_origin_index(s, v, c[0], c[1], c[2])], want)
                  << "block " << b << " face " << f << " depth " << d << " cell " << u << "," << w
                  << " var " << v;
              ++checked;
            }
    }
  }
  return checked;
}

void run_case(AmrMeshOptions options) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, options);
  fill_wide(mesh);
  for (int g = 0; g < options.shape.groups(); ++g) mesh.exchange(g);
  rt.exec.barrier();
  std::int64_t checked = check_wide(mesh, options);
  MPI_Allreduce(MPI_IN_PLACE, &checked, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(checked, 0);
}

TEST(HaloBoundaryTest, TwoGhostLayersFollowPeriodicOutflowAndReflectingFaces) {
  std::vector<AmrHaloOptions> variants(3);
  variants[1].send_faces = true;
  variants[2].separate_buffers = true;
  for (AmrHaloOptions halo : variants) {
    AmrMeshOptions options;
    options.root_blocks = {3, 2, 2};
    options.periodic = {true, false, false};
    options.shape.cells = {2, 4, 6};
    options.shape.ghost = {2, 2, 3};
    options.shape.num_vars = 4;
    options.shape.group_size = 4;
    halo.boundary = {BoundaryKind::outflow,    BoundaryKind::outflow,    BoundaryKind::outflow,
                     BoundaryKind::reflecting, BoundaryKind::reflecting, BoundaryKind::outflow};
    halo.vector_axis = {-1, 0, 1, 2};
    options.halo = halo;
    run_case(options);
  }
}

TEST(HaloBoundaryTest, OneRootBlockAlongAPeriodicAxisIsItsOwnNeighbour) {
  AmrMeshOptions options;
  options.root_blocks = {1, 4, 1};
  options.periodic = {true, true, true};
  options.shape.cells = {4, 2, 4};
  options.shape.ghost = {2, 2, 2};
  options.shape.num_vars = 2;
  options.shape.group_size = 1;
  run_case(options);
}

TEST(HaloBoundaryTest, FlatAxisOfATwoDimensionalMeshHasNoGhosts) {
  AmrMeshOptions options;
  options.root_blocks = {2, 3, 1};
  options.periodic = {false, true, false};
  options.shape.cells = {4, 4, 1};
  options.shape.ghost = {2, 2, 0};
  options.shape.num_vars = 5;
  options.shape.group_size = 5;
  options.halo.boundary[0] = BoundaryKind::reflecting;
  options.halo.vector_axis = {-1, 0, 1, -1, -1};
  run_case(options);
  // Along the flat z axis: the blocks store no ghost layer, and an exchange writes nothing
  // into the one layer of cells (every interior cell keeps its own value).
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, options);
  EXPECT_EQ(mesh.layout().ghost().z, 0);
  EXPECT_EQ(mesh.layout().cells().z, 1);
  fill_wide(mesh);
  for (int g = 0; g < options.shape.groups(); ++g) mesh.exchange(g);
  rt.exec.barrier();
  const BlockShape& s = mesh.shape();
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    const auto base = amr_test::first_cell(s, mesh.place(b));
    EXPECT_EQ(base[2], 0);
    for (int v = 0; v < s.num_vars; ++v)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int i = 0; i < s.cells[0]; ++i)
          ASSERT_EQ(mesh.data(b)[mesh.layout().index(v, i, j, 0)],
                    cell_value(0, base[0] + i, base[1] + j, 0, v))
              << "block " << b << " cell " << i << "," << j << " var " << v;
  }
}

TEST(HaloBoundaryTest, ShapesOutsideTheContractAreRejected) {
  MeshRuntime rt;
  BlockShape shape;
  shape.cells = {4, 4, 4};
  shape.ghost = {2, 5, 2};
  EXPECT_THROW(BlockStore(rt.runtime, shape), std::invalid_argument);
  shape.ghost = {2, 2, 0};
  EXPECT_THROW(BlockStore(rt.runtime, shape), std::invalid_argument);
  AmrMeshOptions options;
  options.shape.cells = {4, 4, 4};
  options.shape.ghost = {2, 2, 2};
  AmrMesh mesh(rt.comm, rt.exec, options);
  EXPECT_THROW(
      mesh.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(mesh.local_block_count()), 1)),
      std::logic_error);
}

}  // namespace
}  // namespace tessera
