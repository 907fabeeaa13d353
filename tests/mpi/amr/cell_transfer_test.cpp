// Custom level jumps (CellTransfer) on an adaptive mesh: a transfer whose cells hold their
// own level and global index shows that split, merge, the ghosts across level jumps (child
// of the coarse cell for a fine receiver, parent of the fine cells for a coarse one, across
// ranks too) and the flux correction call it with the documented child numbering: any other
// numbering gives wrong coordinates (or non-integers), and every value here is exact.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <limits>

#include "mesh_fixture.hpp"
#include "tessera/amr/cell_transfer.hpp"
#include "tessera/amr/marking.hpp"

// A namespace of its own: the unity build puts this file beside level_jump_test.cpp.
namespace tessera::cell_transfer_test {
namespace {

using amr_test::first_cell;
using amr_test::ghost_origin_index;
using amr_test::MeshRuntime;
using amr_test::refine_around_centre;

int bit(int child, int a) {
  return (child >> a) & 1;
}

// A cell holds (level, gx, gy, gz); a face cell's flux (t0, t1), its tangential indices.
class CoordinateTransfer final : public CellTransfer {
 public:
  void child_from_parent(const double* parent, int child, double* out) const override {
    out[0] = parent[0] + 1;
    for (int a = 0; a < 3; ++a) out[1 + a] = 2 * parent[1 + a] + bit(child, a);
  }
  void add_child_to_parent(const double* c, int child, double* parent) const override {
    parent[0] += (c[0] - 1) / 8;
    for (int a = 0; a < 3; ++a) parent[1 + a] += (c[1 + a] - bit(child, a)) / 2 / 8;
  }
  int face_flux_values() const override { return 2; }
  void add_fine_face_flux(int /*axis*/, int child, const double* fine,
                          double* coarse) const override {
    for (int k = 0; k < 2; ++k) coarse[k] += (fine[k] - bit(child, k)) / 2 / 4;
  }
  // Counts the corrections in the level; the flux change is 0 when the fine faces' coarse
  // flux is the coarse face's own (the right numbering).
  void correct_cell(int /*axis*/, int /*side*/, const double* change, double coefficient,
                    double* cell) const override {
    cell[0] += 1000 + (change[0] + change[1]) * 1e6 + (coefficient == 0.5 ? 0 : 1e9);
  }
};

AmrMeshOptions custom_mesh(const CellTransfer* transfer) {
  AmrMeshOptions o;
  o.root_blocks = {2, 2, 2};
  o.shape.cells = {2, 2, 2};
  o.shape.ghost = {1, 1, 1};
  o.shape.num_vars = 4;
  o.shape.group_size = 4;
  o.halo.level_jumps = LevelJumpRule::custom;
  o.halo.transfer = transfer;
  o.corrected_vars = transfer->face_flux_values();
  return o;
}

double& at(AmrMesh& mesh, std::int32_t b, int v, int i, int j, int k) {
  return mesh.data(b)[ghost_origin_index(mesh.shape(), v, i + 1, j + 1, k + 1)];
}

// Interior cells (i, j, k from 0) hold their own level and global index.
void fill_coordinates(AmrMesh& mesh) {
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    double* d = mesh.data(b);
    for (std::size_t c = 0; c < s.layout().size(); ++c)
      d[c] = std::numeric_limits<double>::quiet_NaN();
    const auto base = first_cell(s, mesh.place(b));
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k) {
          const std::int64_t g[3] = {base[0] + i, base[1] + j, base[2] + k};
          at(mesh, b, 0, i, j, k) = mesh.place(b).level;
          for (int a = 0; a < 3; ++a) at(mesh, b, 1 + a, i, j, k) = static_cast<double>(g[a]);
        }
  }
}

// Expects every interior cell to hold its coordinates (level + level_offset).
void expect_coordinates(AmrMesh& mesh) {
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const auto base = first_cell(s, mesh.place(b));
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k) {
          ASSERT_EQ(at(mesh, b, 0, i, j, k), mesh.place(b).level) << "block " << b;
          ASSERT_EQ(at(mesh, b, 1, i, j, k), static_cast<double>(base[0] + i));
          ASSERT_EQ(at(mesh, b, 2, i, j, k), static_cast<double>(base[1] + j));
          ASSERT_EQ(at(mesh, b, 3, i, j, k), static_cast<double>(base[2] + k));
        }
  }
}

// The level-0 brick with its coordinates, refined twice around its centre.
struct RefinedMesh {
  MeshRuntime rt;
  CoordinateTransfer transfer;
  AmrMesh mesh{rt.comm, rt.exec, custom_mesh(&transfer)};
  RefinedMesh() {
    fill_coordinates(mesh);
    refine_around_centre(mesh);
    rt.exec.barrier();
  }
};

TEST(CellTransferTest, SplitGhostsAndMergeUseTheTransfersChildren) {
  RefinedMesh refined;
  MeshRuntime& rt = refined.rt;
  AmrMesh& mesh = refined.mesh;
  ASSERT_GT(mesh.forest().global_level_counts(2)[2], 0);
  expect_coordinates(mesh);  // the split children

  mesh.exchange(0);
  rt.exec.barrier();
  const BlockShape& s = mesh.shape();
  std::int64_t checked[2] = {0, 0};  // from coarser, from finer
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const auto base = first_cell(s, mesh.place(b));
    for (int f = 0; f < kBlockFaces; ++f) {
      const FaceKind kind = mesh.forest().neighbors(b, f).kind;
      if (kind == FaceKind::boundary) continue;
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      for (int u = 0; u < s.cells[t0]; ++u)
        for (int w = 0; w < s.cells[t1]; ++w) {
          int c[3];
          c[axis] = f % 2 == 1 ? s.cells[axis] : -1;
          c[t0] = u;
          c[t1] = w;
          ASSERT_EQ(at(mesh, b, 0, c[0], c[1], c[2]), mesh.place(b).level) << "face " << f;
          for (int a = 0; a < 3; ++a)
            ASSERT_EQ(at(mesh, b, 1 + a, c[0], c[1], c[2]), static_cast<double>(base[a] + c[a]))
                << "face " << f << " axis " << a;
          if (kind == FaceKind::coarser) ++checked[0];
          if (kind == FaceKind::finer) ++checked[1];
        }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, checked, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(checked[0], 0);
  EXPECT_GT(checked[1], 0);

  for (int round = 0; round < 2; ++round) {
    const std::vector<std::int8_t> wants(static_cast<std::size_t>(mesh.local_block_count()), -1);
    mesh.adapt(balanced_marks(mesh.forest(), wants, 2));
    mesh.rebalance();
  }
  rt.exec.barrier();
  EXPECT_EQ(mesh.forest().global_count(), 8);
  expect_coordinates(mesh);  // the merged parents
}

TEST(CellTransferTest, FluxCorrectionTakesTheTransfersCoarseFlux) {
  RefinedMesh refined;
  MeshRuntime& rt = refined.rt;
  AmrMesh& mesh = refined.mesh;
  fill_coordinates(mesh);
  const BlockShape& s = mesh.shape();
  FluxCorrection& flux = *mesh.flux_correction();
  const FluxRegister& layout = flux.layout();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    double* reg = flux.fluxes(b);
    if (reg == nullptr) continue;
    const auto base = first_cell(s, mesh.place(b));
    for (int f = 0; f < kBlockFaces; ++f) {
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      for (int u = 0; u < s.cells[t0]; ++u)
        for (int w = 0; w < s.cells[t1]; ++w) {
          reg[layout.index(f, 0, u, w)] = static_cast<double>(base[t0] + u);
          reg[layout.index(f, 1, u, w)] = static_cast<double>(base[t1] + w);
        }
    }
  }
  // A level-L coarse block's coefficient is step / 2^-L: 0.5 on level 0, 1 on level 1
  // (correct_cell adds 1e9 for any coefficient but 0.5).
  const double step = 0.5;
  flux.submit(0, 0, &step, 1.0, {1.0, 1.0, 1.0}, rt.exec);
  rt.exec.barrier();
  std::int64_t corrected = 0;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const int level = mesh.place(b).level;
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k) {
          const int c[3] = {i, j, k};
          int faces = 0;
          for (int f = 0; f < kBlockFaces; ++f) {
            const int axis = f / 2;
            const bool next = c[axis] == (f % 2 == 1 ? s.cells[axis] - 1 : 0);
            if (next && mesh.forest().neighbors(b, f).kind == FaceKind::finer) ++faces;
          }
          const double value = at(mesh, b, 0, i, j, k);
          const double marks = level == 0 ? 0 : 1e9;
          ASSERT_EQ(value, level + faces * (1000 + marks)) << "block " << b << " level " << level;
          corrected += faces;
        }
  }
  MPI_Allreduce(MPI_IN_PLACE, &corrected, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(corrected, 0);
}

}  // namespace
}  // namespace tessera::cell_transfer_test
