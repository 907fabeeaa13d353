#pragma once
// Strided windows on a 3-D array of doubles: how multigrid transfer kernels see a block (with
// its ghosts) or a packed message buffer, without knowing which one it is.

#include <cstddef>

#include "tessera/mesh/block_layout.hpp"

namespace tessera {

/// A read-only strided window: cell (i, j, k) is origin[i + j * stride_y + k * stride_z].
/// Indices may be negative or reach past the nominal extent as far as the storage behind it
/// allows (ghost cells); the producer of a view states that range.
struct ConstGridView {
  const double* origin = nullptr;
  std::ptrdiff_t stride_y = 0;
  std::ptrdiff_t stride_z = 0;
  const double& operator()(int i, int j, int k) const {
    return origin[i + j * stride_y + k * stride_z];
  }
  const double* row(int j, int k) const { return origin + j * stride_y + k * stride_z; }
};

/// The writable twin of ConstGridView, to which it converts.
struct GridView {
  double* origin = nullptr;
  std::ptrdiff_t stride_y = 0;
  std::ptrdiff_t stride_z = 0;
  double& operator()(int i, int j, int k) const { return origin[i + j * stride_y + k * stride_z]; }
  /// Start of row (j, k), for loops over i.
  double* row(int j, int k) const { return origin + j * stride_y + k * stride_z; }
  operator ConstGridView() const { return {origin, stride_y, stride_z}; }  // NOLINT: implicit
};

/// Variable `var` of a block stored with `layout` at `block`, origin at cell (0, 0, 0);
/// the ghost layer is reachable at negative indices and at cells() and beyond.
inline GridView block_view(const BlockLayout& layout, double* block, int var = 0) {
  return {block + layout.index(var, 0, 0, 0), layout.stride_y(), layout.stride_z()};
}
inline ConstGridView block_view(const BlockLayout& layout, const double* block, int var = 0) {
  return {block + layout.index(var, 0, 0, 0), layout.stride_y(), layout.stride_z()};
}

}  // namespace tessera
