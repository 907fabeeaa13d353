#pragma once
// Block data of an adaptive mesh (layer `amr`): a pool of block slots, each holding
// nx*ny*nz cells plus `ghost[a]` ghost layers on both sides of every axis a for num_vars
// variables, with the runtime handles tasks use to declare what they touch.
//
// A slot is one block in BlockLayout order, the uniform mesh's (see block_layout.hpp):
// [var][k][j][i] with i fastest, rows padded to a cache line, interior cells 0..n-1 and
// ghost cells -ghost[a]..-1 and n..n+ghost[a]-1. Kernels index it with BlockLayout::index,
// so one kernel runs on BlockField and AmrMesh blocks alike. An axis with cells 1 and ghost 0
// is *flat* (2-D meshes): it has no ghosts and the halo exchanges nothing across its faces.
// Variables are split into groups of `group_size` consecutive variables (miniAMR's
// --comm_vars); a group is contiguous in memory and has four handles: the interior cells,
// and the ghost cells of each axis. The ghost region of axis a holds the cells a halo pass
// along a writes (see halo.hpp); the three regions and the interior are disjoint, so tasks on
// different ones may run concurrently.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tessera/mesh/block_layout.hpp"
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
  /// Rows' alignment in the slots' BlockLayout: BlockLayout::kRowAlignment (cache lines),
  /// or 1 (packed rows: small blocks with narrow ghosts, see BlockLayout's constructor).
  int row_alignment = BlockLayout::kRowAlignment;

  int groups() const { return (num_vars + group_size - 1) / group_size; }
  int group_first(int g) const { return g * group_size; }
  int group_vars(int g) const { return g + 1 < groups() ? group_size : num_vars - g * group_size; }
  /// True if some axis has a ghost width other than 1 (miniAMR's layout has 1 everywhere).
  bool wide_ghosts() const { return ghost[0] != 1 || ghost[1] != 1 || ghost[2] != 1; }
  /// The storage layout of a block slot (all num_vars variables). Needs the constraints
  /// BlockLayout's constructor checks (BlockStore checks stricter ones).
  BlockLayout layout() const {
    return BlockLayout({cells[0], cells[1], cells[2]}, {ghost[0], ghost[1], ghost[2]}, num_vars,
                       row_alignment);
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
  /// Every slot's layout (shape().layout()).
  const BlockLayout& layout() const { return layout_; }

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
  /// The ghost handles of group g of all three axes.
  std::span<const Handle> ghost_handles(std::int32_t slot, int g) const {
    return std::span<const Handle>(handles(slot, g)).subspan(1);
  }

  /// Slots in use.
  std::int32_t in_use() const { return in_use_; }
  /// Largest number of slots in use at any time so far.
  std::int32_t high_water() const { return high_water_; }

 private:
  struct FreeDeleter {
    void operator()(double* p) const;
  };
  struct Slot {
    std::unique_ptr<double[], FreeDeleter> data;  // on a cache line, as BlockLayout's rows
    std::vector<std::array<Handle, 4>> handles;   // per group: interior, ghosts x, y, z
  };
  const std::array<Handle, 4>& handles(std::int32_t slot, int g) const {
    return slots_[static_cast<std::size_t>(slot)].handles[static_cast<std::size_t>(g)];
  }

  Runtime& runtime_;
  BlockShape shape_;
  BlockLayout layout_;
  std::vector<Slot> slots_;
  std::vector<std::int32_t> free_;
  std::int32_t in_use_ = 0;
  std::int32_t high_water_ = 0;
};

}  // namespace tessera
