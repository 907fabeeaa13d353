#pragma once
// What a kernel takes to read or write one block: its layout and the start of its array.
// BlockField::view and AmrMesh::view give one, so a kernel written against BlockView runs
// on the uniform and the adaptive mesh alike.

#include <cstddef>

#include "tessera/mesh/block_layout.hpp"

namespace tessera {

/// One block's memory: `data` points at the block's array in `layout` (cells 0..n-1,
/// ghosts at negative indices and from n, see BlockLayout). Two pointers: copy it into a
/// task by value. Valid while the block's storage lives and does not move (a BlockField's
/// lifetime; an AmrMesh block until the mesh changes). Callable from any thread; the
/// caller's task declares the accesses (interior / ghost handles) of what it touches.
struct BlockView {
  const BlockLayout* layout = nullptr;
  double* data = nullptr;

  /// Cell (i, j, k) of variable var (ghosts allowed).
  double& operator()(int var, int i, int j, int k) const {
    return data[layout->index(var, i, j, k)];
  }
  /// Address of cell (i, j, k) of variable var: neighbours along x, y, z are 1,
  /// layout->stride_y() and layout->stride_z() doubles away.
  double* at(int var, int i, int j, int k) const { return data + layout->index(var, i, j, k); }
};

}  // namespace tessera
