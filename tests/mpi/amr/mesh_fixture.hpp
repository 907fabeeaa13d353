#pragma once
// Shared set-up for AmrMesh tests: a runtime with two threads, its communication layer and
// the dataflow execution model, plus cell data that is a function of the cell's position
// (small integers, so that the sums and quarters the halo computes are exact).

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <limits>

#include "tessera/amr/marking.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera::amr_test {

struct MeshRuntime {
  Runtime runtime{RuntimeOptions{.threads = 2}};
  Comm comm{runtime, MPI_COMM_WORLD};
  Exec exec{ExecModel::dataflow, runtime};
};

/// Value of variable v in the cell with global index (gx, gy, gz) on `level`.
inline double cell_value(int level, std::int64_t gx, std::int64_t gy, std::int64_t gz, int v) {
  return static_cast<double>((gx * 3 + gy * 5 + gz * 7 + v * 11 + level * 13) % 61 + 1);
}

/// Global index on its level of the first interior cell of a block, per axis.
inline std::array<std::int64_t, 3> first_cell(const BlockShape& s, const BlockPlace& p) {
  return {p.origin[0] / p.length() * s.cells[0], p.origin[1] / p.length() * s.cells[1],
          p.origin[2] / p.length() * s.cells[2]};
}

/// Offset of cell (i, j, k) of variable v, the indices counted from the first ghost layer
/// (the interior starts at s.ghost[a]): these tests loop over whole blocks, ghosts included.
inline std::size_t ghost_origin_index(const BlockShape& s, int v, int i, int j, int k) {
  return static_cast<std::size_t>(
      s.layout().index(v, i - s.ghost[0], j - s.ghost[1], k - s.ghost[2]));
}

/// Cells along axis a, ghosts included.
inline int extent(const BlockShape& s, int a) {
  return s.cells[a] + 2 * s.ghost[a];
}

/// Fills every local block with cell_value and every ghost with NaN. Main thread, no
/// tasks running.
inline void fill_positions(AmrMesh& mesh) {
  const BlockShape& s = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    double* data = mesh.data(b);
    const auto base = first_cell(s, mesh.place(b));
    for (int v = 0; v < s.num_vars; ++v)
      for (int i = 0; i <= s.cells[0] + 1; ++i)
        for (int j = 0; j <= s.cells[1] + 1; ++j)
          for (int k = 0; k <= s.cells[2] + 1; ++k) {
            const bool interior =
                i >= 1 && i <= s.cells[0] && j >= 1 && j <= s.cells[1] && k >= 1 && k <= s.cells[2];
            data[ghost_origin_index(s, v, i, j, k)] =
                interior ? cell_value(mesh.place(b).level, base[0] + i - 1, base[1] + j - 1,
                                      base[2] + k - 1, v)
                         : std::numeric_limits<double>::quiet_NaN();
          }
  }
}

/// Two levels of refinement around the brick's centre (the blocks touching it, then the
/// child at its lower corner), 2:1 balanced by balanced_marks, repartitioned. Collective.
inline void refine_around_centre(AmrMesh& mesh) {
  for (int round = 0; round < 2; ++round) {
    mesh.exchange(0);  // per-volume split reads the parent's face ghosts
    std::vector<std::int8_t> wants(static_cast<std::size_t>(mesh.local_block_count()), 0);
    for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
      const BlockPlace& p = mesh.place(b);
      bool touches = true;  // the block touches the brick's centre point
      for (int a = 0; a < 3; ++a)
        touches = touches && p.origin[a] <= kRootLength && p.origin[a] + p.length() >= kRootLength;
      // Round 1 refines only the child at the centre's lower corner: its neighbours follow.
      const bool lower = p.origin[0] + p.length() == kRootLength &&
                         p.origin[1] + p.length() == kRootLength &&
                         p.origin[2] + p.length() == kRootLength;
      wants[static_cast<std::size_t>(b)] = (round == 0 ? touches : lower) ? 1 : 0;
    }
    const std::vector<std::int8_t> marks = balanced_marks(mesh.forest(), wants, 2);
    for (std::size_t b = 0; b < marks.size(); ++b)
      if (wants[b] > 0) {
        EXPECT_EQ(marks[b], 1);
      }
    mesh.adapt(marks);
    EXPECT_TRUE(mesh.forest().is_face_balanced());
    mesh.rebalance();
  }
}

}  // namespace tessera::amr_test
