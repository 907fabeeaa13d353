#pragma once
// Block data of an adaptive mesh (layer `amr`): a pool of block slots, each holding
// nx*ny*nz cells plus `ghost[a]` ghost layers on both sides of every axis a for num_vars
// variables, with the runtime handles tasks use to declare what they touch.
//
// Layout of a slot (miniAMR's): [var][i][j][k] with k fastest, i in 0..nx+2gx-1 where
// gx..gx+nx-1 are the interior cells (with one ghost layer: 1..nx, ghosts 0 and nx+1),
// likewise j and k. An axis with cells 1 and ghost 0 is *flat* (2-D meshes): it has no
// ghosts and the halo exchanges nothing across its faces. Variables are split into groups of
// `group_size` consecutive variables (miniAMR's --comm_vars); a group is contiguous in memory and
// has four handles: the interior cells, and the ghost cells of each axis. The ghost
// region of axis a holds the cells a halo pass along a writes (see amr_halo.hpp); the
// three regions and the interior are disjoint, so tasks on different ones may run
// concurrently.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/runtime/handle.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {

/// Cells and variables of every block.
struct BlockShape {
  std::array<int, 3> cells{10, 10, 10};  ///< nx, ny, nz: each even and >= 2 (or 1: flat)
  int num_vars = 1;
  int group_size = 1;  ///< variables per communication group (1..num_vars)
  /// Ghost layers per axis: 1..cells[a] (a same-level neighbour sends that many of its
  /// layers), or 0 on a flat axis (cells 1).
  std::array<int, 3> ghost{1, 1, 1};

  int groups() const { return (num_vars + group_size - 1) / group_size; }
  int group_first(int g) const { return g * group_size; }
  int group_vars(int g) const { return g + 1 < groups() ? group_size : num_vars - g * group_size; }
  /// Cells along axis a, ghosts included.
  int extent(int a) const { return cells[a] + 2 * ghost[a]; }
  /// True if some axis has a ghost width other than 1 (miniAMR's layout has 1 everywhere).
  bool wide_ghosts() const { return ghost[0] != 1 || ghost[1] != 1 || ghost[2] != 1; }
  /// Doubles per variable, ghosts included.
  std::size_t var_stride() const {
    return static_cast<std::size_t>(extent(0)) * static_cast<std::size_t>(extent(1)) *
           static_cast<std::size_t>(extent(2));
  }
  std::size_t stride_i() const {
    return static_cast<std::size_t>(extent(1)) * static_cast<std::size_t>(extent(2));
  }
  std::size_t stride_j() const { return static_cast<std::size_t>(extent(2)); }
  /// Offset of cell (i, j, k) of variable v; indices count from the first ghost layer
  /// (0..extent - 1), so the interior starts at ghost[a].
  std::size_t index(int v, int i, int j, int k) const {
    return static_cast<std::size_t>(v) * var_stride() + static_cast<std::size_t>(i) * stride_i() +
           static_cast<std::size_t>(j) * stride_j() + static_cast<std::size_t>(k);
  }
  std::size_t interior_cells() const {
    return static_cast<std::size_t>(cells[0]) * cells[1] * cells[2];
  }
};

/// Slots of block data with their handles. Main thread only: tasks get raw pointers from
/// data() at submission (a slot's memory never moves while the store lives).
class BlockStore {
 public:
  BlockStore(Runtime& runtime, BlockShape shape);

  const BlockShape& shape() const { return shape_; }

  /// A free slot (a new one, or one released earlier: its contents are unspecified and its
  /// handles order the new tasks after every task submitted on the slot before).
  std::int32_t acquire();
  /// Returns a slot to the pool.
  void release(std::int32_t slot);

  double* data(std::int32_t slot) { return slots_[static_cast<std::size_t>(slot)].data.get(); }
  const double* data(std::int32_t slot) const {
    return slots_[static_cast<std::size_t>(slot)].data.get();
  }
  /// The interior cells of group g.
  Handle interior(std::int32_t slot, int g) const { return handles(slot, g)[0]; }
  /// The ghost cells of group g written by the halo pass along `axis`.
  Handle ghosts(std::int32_t slot, int g, int axis) const { return handles(slot, g)[1 + axis]; }

  /// Slots in use.
  std::int32_t in_use() const { return in_use_; }
  /// Largest number of slots in use at any time so far.
  std::int32_t high_water() const { return high_water_; }

 private:
  struct Slot {
    std::unique_ptr<double[]> data;
    std::vector<std::array<Handle, 4>> handles;  // per group: interior, ghosts x, y, z
  };
  const std::array<Handle, 4>& handles(std::int32_t slot, int g) const {
    return slots_[static_cast<std::size_t>(slot)].handles[static_cast<std::size_t>(g)];
  }

  Runtime& runtime_;
  BlockShape shape_;
  std::vector<Slot> slots_;
  std::vector<std::int32_t> free_;
  std::int32_t in_use_ = 0;
  std::int32_t high_water_ = 0;
};

}  // namespace tessera
