// AmrHalo: every ghost face after an exchange holds what miniAMR puts there (same level:
// the neighbour's cells; from a coarser neighbour: its cell / 4; from finer neighbours: the
// sum of the 4 fine cells; domain boundary: the block's own cells), for on-rank copies and
// messages alike, with every message option.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>

#include "mesh_fixture.hpp"
#include "tessera/amr/marking.hpp"

namespace tessera {
namespace {

using amr_test::cell_value;
using amr_test::extent;
using amr_test::fill_positions;
using amr_test::first_cell;
using amr_test::ghost_origin_index;
using amr_test::MeshRuntime;

// Refines around two points so that the mesh has level jumps across faces in all
// directions, then spreads it over the ranks.
void make_graded_mesh(AmrMesh& mesh) {
  const std::array<std::array<double, 3>, 2> points{{{0.3, 0.4, 0.55}, {0.8, 0.1, 0.2}}};
  for (int it = 0; it < 2; ++it) {
    const Forest& forest = mesh.forest();
    std::vector<std::uint8_t> hit(static_cast<std::size_t>(forest.local_count()));
    for (std::int32_t i = 0; i < forest.local_count(); ++i) {
      const auto b = forest.unit_box(forest.local(i));
      for (const auto& p : points)
        hit[static_cast<std::size_t>(i)] |= b[0][0] <= p[0] && p[0] <= b[0][1] && b[1][0] <= p[1] &&
                                            p[1] <= b[1][1] && b[2][0] <= p[2] && p[2] <= b[2][1];
    }
    mesh.adapt(refinement_marks(forest, hit, 2));
  }
  mesh.rebalance();
}

// Expected value of ghost cell (u, w) of face f (face interior, 1-based) of local block b.
double expected_ghost(const AmrMesh& mesh, std::int32_t b, int f, int u, int w, int v) {
  const BlockShape& s = mesh.shape();
  const BlockPlace& me = mesh.place(b);
  const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
  const auto base = first_cell(s, me);
  std::array<std::int64_t, 3> g{};
  g[static_cast<std::size_t>(axis)] = f % 2 == 1 ? base[axis] + s.cells[axis] : base[axis] - 1;
  g[static_cast<std::size_t>(t0)] = base[t0] + u - 1;
  g[static_cast<std::size_t>(t1)] = base[t1] + w - 1;
  const FaceNeighbors& nb = mesh.forest().neighbors(b, f);
  switch (nb.kind) {
    case FaceKind::boundary: {
      auto own = g;
      own[static_cast<std::size_t>(axis)] =
          f % 2 == 1 ? base[axis] + s.cells[axis] - 1 : base[axis];
      return cell_value(me.level, own[0], own[1], own[2], v);
    }
    case FaceKind::same:
      return cell_value(me.level, g[0], g[1], g[2], v);
    case FaceKind::coarser:
      return cell_value(me.level - 1, g[0] / 2, g[1] / 2, g[2] / 2, v) / 4.0;
    case FaceKind::finer: {
      double sum = 0;
      for (int a = 0; a < 2; ++a)
        for (int c = 0; c < 2; ++c) {
          std::array<std::int64_t, 3> fine{};
          fine[static_cast<std::size_t>(axis)] = 2 * g[axis] + (f % 2 == 1 ? 0 : 1);
          fine[static_cast<std::size_t>(t0)] = 2 * g[t0] + a;
          fine[static_cast<std::size_t>(t1)] = 2 * g[t1] + c;
          sum += cell_value(me.level + 1, fine[0], fine[1], fine[2], v);
        }
      return sum;
    }
  }
  return 0;
}

void check_faces(AmrMesh& mesh, int& jump_faces) {
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const double* data = mesh.data(b);
    for (int f = 0; f < kBlockFaces; ++f) {
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      const FaceNeighbors& nb = mesh.forest().neighbors(b, f);
      jump_faces += nb.kind == FaceKind::coarser || nb.kind == FaceKind::finer;
      for (int v = 0; v < s.num_vars; ++v)
        for (int u = 1; u <= s.cells[t0]; ++u)
          for (int w = 1; w <= s.cells[t1]; ++w) {
            int c[3];
            c[axis] = f % 2 == 1 ? s.cells[axis] + 1 : 0;
            c[t0] = u;
            c[t1] = w;
            ASSERT_EQ(data[ghost_origin_index(s, v, c[0], c[1], c[2])],
                      expected_ghost(mesh, b, f, u, w, v))
                << "block " << b << " face " << f << " kind " << static_cast<int>(nb.kind)
                << " cell " << u << "," << w << " var " << v;
          }
    }
  }
}

TEST(HaloTest, GhostFacesFollowMiniAmrRulesForEveryMessageOption) {
  std::vector<AmrHaloOptions> variants(4);
  variants[1].send_faces = true;
  variants[1].max_comm_tasks = 2;
  variants[2].separate_buffers = true;
  variants[3].send_faces = true;
  variants[3].separate_buffers = true;
  for (const AmrHaloOptions& halo : variants) {
    MeshRuntime rt;
    AmrMeshOptions options;
    options.root_blocks = {2, 2, 1};
    options.shape.cells = {4, 2, 6};
    options.shape.num_vars = 3;
    options.shape.group_size = 2;
    options.halo = halo;
    AmrMesh mesh(rt.comm, rt.exec, options);
    make_graded_mesh(mesh);
    rt.exec.barrier();
    fill_positions(mesh);
    for (int g = 0; g < options.shape.groups(); ++g) mesh.exchange(g);
    rt.exec.barrier();
    int jump_faces = 0;
    check_faces(mesh, jump_faces);
    MPI_Allreduce(MPI_IN_PLACE, &jump_faces, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(jump_faces, 0);
    if (rt.comm.size() > 1) {
      std::int64_t messages = mesh.halo_counts().messages;
      MPI_Allreduce(MPI_IN_PLACE, &messages, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_GT(messages, 0);
    }
  }
}

TEST(HaloTest, CornerPassesFillEdgeAndCornerGhostsFromDiagonalNeighbours) {
  MeshRuntime rt;
  AmrMeshOptions options;
  options.root_blocks = {2, 2, 2};
  options.shape.cells = {2, 4, 2};
  options.shape.num_vars = 1;
  options.shape.group_size = 1;
  options.halo.corners = true;
  options.halo.send_faces = true;
  AmrMesh mesh(rt.comm, rt.exec, options);
  mesh.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(mesh.local_block_count()), 1));
  mesh.rebalance();
  rt.exec.barrier();
  fill_positions(mesh);
  mesh.exchange(0);
  rt.exec.barrier();
  const BlockShape& s = mesh.shape();
  std::int64_t cells_per_axis[3];
  for (int a = 0; a < 3; ++a) cells_per_axis[a] = 2 * 2 * s.cells[a];  // 2 roots, level 1
  int edge_cells = 0;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const double* data = mesh.data(b);
    const auto base = first_cell(s, mesh.place(b));
    for (int i = 0; i <= s.cells[0] + 1; ++i)
      for (int j = 0; j <= s.cells[1] + 1; ++j)
        for (int k = 0; k <= s.cells[2] + 1; ++k) {
          const int outside = (i == 0 || i == s.cells[0] + 1) + (j == 0 || j == s.cells[1] + 1) +
                              (k == 0 || k == s.cells[2] + 1);
          if (outside < 2) continue;  // faces are checked by the test above
          const std::int64_t g[3] = {base[0] + i - 1, base[1] + j - 1, base[2] + k - 1};
          bool in_domain = true;
          for (int a = 0; a < 3; ++a)
            in_domain = in_domain && g[a] >= 0 && g[a] < cells_per_axis[a];
          if (!in_domain) continue;  // reflective boundaries are not diagonal neighbours
          ++edge_cells;
          EXPECT_EQ(data[ghost_origin_index(s, 0, i, j, k)], cell_value(1, g[0], g[1], g[2], 0))
              << "block " << b << " ghost " << i << "," << j << "," << k;
        }
  }
  MPI_Allreduce(MPI_IN_PLACE, &edge_cells, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(edge_cells, 0);
}

}  // namespace
}  // namespace tessera
