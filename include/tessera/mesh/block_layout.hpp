#pragma once
// Memory layout of one block: nx*ny*nz cells surrounded by a ghost layer, nvars variables,
// all in one contiguous array of doubles.

#include <cstddef>
#include <cstdint>

#include "tessera/mesh/box.hpp"
#include "tessera/mesh/direction.hpp"

namespace tessera {

/// Cell (i, j, k) of a block has 0 <= i < nx etc.; ghost cells have -gx <= i < 0 or
/// nx <= i < nx + gx. Storage is [var][k][j][i] with i fastest, so a row of a variable is
/// contiguous. Rows are padded so that cell (0, j, k) of every row starts a 64-byte cache
/// line (kRowAlignment doubles) when the block's array does: vector loads and streaming
/// stores of a row's interior then never split a line, and a row's interior shares no line
/// with another row. The gap between two rows' interiors holds the x ghosts of both (for
/// nx a multiple of kRowAlignment and 2 gx <= kRowAlignment, one line per row: a sweep
/// touches no more lines than without padding).
class BlockLayout {
 public:
  /// Doubles per 64-byte cache line: rows' interiors start on multiples of this.
  static constexpr int kRowAlignment = 8;

  BlockLayout() = default;
  /// cells >= 1 and 0 <= ghost[a] <= cells[a] on every axis, nvars >= 1, row_alignment >= 1
  /// (throws std::invalid_argument naming the bad value otherwise). Rows' interiors start on
  /// multiples of `row_alignment` doubles: kRowAlignment (cache lines, as described above),
  /// or 1 for rows packed end to end (ghosts included) where padding would be a large share
  /// of a small block (8 cells and 1 ghost per row: 16 doubles padded, 10 packed). The
  /// order, the index convention and index() are the same either way.
  BlockLayout(Int3 cells, Int3 ghost, int nvars, int row_alignment = kRowAlignment);

  Int3 cells() const { return cells_; }
  Int3 ghost() const { return ghost_; }
  int nvars() const { return nvars_; }
  int row_alignment() const { return row_alignment_; }
  std::ptrdiff_t stride_y() const { return stride_y_; }
  std::ptrdiff_t stride_z() const { return stride_z_; }
  std::ptrdiff_t stride_var() const { return stride_var_; }
  /// Doubles per block (all variables, ghosts and padding included).
  std::size_t size() const {
    return static_cast<std::size_t>(stride_var_ * nvars_ - stride_y_ + row_start_ + cells_.x +
                                    ghost_.x);
  }

  /// Offset of (var, i, j, k) from the start of the block's array (ghosts allowed).
  std::ptrdiff_t index(int var, int i, int j, int k) const {
    return var * stride_var_ + (k + ghost_.z) * stride_z_ + (j + ghost_.y) * stride_y_ +
           (i + row_start_);
  }
  /// The non-ghost cells.
  Box interior() const { return {{0, 0, 0}, cells_}; }
  /// The ghost cells lying towards direction d (those a neighbour in direction d fills).
  Box ghost_region(Direction d) const;
  /// The interior cells that the neighbour in direction d needs for its ghost_region(-d);
  /// same extent as ghost_region(d).
  Box send_region(Direction d) const;

 private:
  Int3 cells_{1, 1, 1};
  Int3 ghost_{};
  int nvars_ = 1;
  int row_alignment_ = kRowAlignment;
  std::ptrdiff_t row_start_ = 0;  // offset of cell i = 0 in its row: gx rounded up to alignment
  std::ptrdiff_t stride_y_ = 1;
  std::ptrdiff_t stride_z_ = 1;
  std::ptrdiff_t stride_var_ = 1;
};

/// Copies `region` of every variable of `block` to `out`, as [var][k][j][i] with i fastest
/// (region.cells() * nvars values). Callable from any thread.
void pack_region(const BlockLayout& layout, const double* block, Box region, double* out);
/// Inverse of pack_region: writes `region` of every variable of `block` from `in`.
void unpack_region(const BlockLayout& layout, double* block, Box region, const double* in);
/// Copies `from_region` of `from` into `to_region` of `to` (equal extents; both blocks
/// have `layout`), for every variable.
void copy_region(const BlockLayout& layout, const double* from, Box from_region, double* to,
                 Box to_region);

}  // namespace tessera
