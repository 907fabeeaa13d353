#include "tessera/mesh/block_layout.hpp"

#include <stdexcept>
#include <string>

namespace tessera {

namespace {

const char* axis_name(int axis) {
  return axis == 0 ? "x" : (axis == 1 ? "y" : "z");
}

std::ptrdiff_t round_up_to_multiple(std::ptrdiff_t doubles, std::ptrdiff_t multiple) {
  return (doubles + multiple - 1) / multiple * multiple;
}

}  // namespace

BlockLayout::BlockLayout(Int3 cells, Int3 ghost, int nvars, int row_alignment)
    : cells_(cells), ghost_(ghost), nvars_(nvars), row_alignment_(row_alignment) {
  for (int a = 0; a < 3; ++a) {
    if (cells[a] < 1) {
      throw std::invalid_argument(std::string("block cells in ") + axis_name(a) +
                                  " must be >= 1, got " + std::to_string(cells[a]));
    }
    if (ghost[a] < 0 || ghost[a] > cells[a]) {
      throw std::invalid_argument(std::string("ghost width in ") + axis_name(a) +
                                  " must be in [0, " + std::to_string(cells[a]) + "], got " +
                                  std::to_string(ghost[a]));
    }
  }
  if (nvars < 1) throw std::invalid_argument("nvars must be >= 1, got " + std::to_string(nvars));
  if (row_alignment < 1)
    throw std::invalid_argument("row alignment must be >= 1, got " + std::to_string(row_alignment));
  // Row r's interior starts at r * stride_y + row_start, both multiples of the alignment; its x
  // ghosts sit just before and after it, in the gap of stride_y - nx >= 2 gx doubles that
  // separates it from the next row's interior.
  row_start_ = round_up_to_multiple(ghost.x, row_alignment);
  stride_y_ = round_up_to_multiple(cells.x + 2 * ghost.x, row_alignment);
  stride_z_ = stride_y_ * (cells.y + 2 * ghost.y);
  stride_var_ = stride_z_ * (cells.z + 2 * ghost.z);
}

Box BlockLayout::ghost_region(Direction d) const {
  Box box;
  for (int a = 0; a < 3; ++a) {
    switch (d.offset[a]) {
      case -1:
        box.lo[a] = -ghost_[a];
        box.hi[a] = 0;
        break;
      case 0:
        box.lo[a] = 0;
        box.hi[a] = cells_[a];
        break;
      default:
        box.lo[a] = cells_[a];
        box.hi[a] = cells_[a] + ghost_[a];
        break;
    }
  }
  return box;
}

Box BlockLayout::send_region(Direction d) const {
  Box box;
  for (int a = 0; a < 3; ++a) {
    switch (d.offset[a]) {
      case -1:
        box.lo[a] = 0;
        box.hi[a] = ghost_[a];
        break;
      case 0:
        box.lo[a] = 0;
        box.hi[a] = cells_[a];
        break;
      default:
        box.lo[a] = cells_[a] - ghost_[a];
        box.hi[a] = cells_[a];
        break;
    }
  }
  return box;
}

namespace {

// Copies the rows j = 0..rows-1 of a plane, each `count` doubles, `stride` apart in `from`
// and `to_stride` apart in `to`. Plain loops, not std::copy: rows of x faces hold one or two
// cells, where a memmove call per row would cost more than the copy itself.
inline void copy_rows(const double* __restrict from, std::ptrdiff_t from_stride,
                      double* __restrict to, std::ptrdiff_t to_stride, int rows, int count) {
  if (count == 1) {
    for (int j = 0; j < rows; ++j) to[j * to_stride] = from[j * from_stride];
    return;
  }
  for (int j = 0; j < rows; ++j) {
    const double* __restrict src = from + j * from_stride;
    double* __restrict dst = to + j * to_stride;
    for (int i = 0; i < count; ++i) dst[i] = src[i];
  }
}

}  // namespace

void pack_region(const BlockLayout& layout, const double* block, Box region, double* out) {
  if (region.empty()) return;
  const Int3 n = region.extent();
  for (int var = 0; var < layout.nvars(); ++var) {
    for (int k = region.lo.z; k < region.hi.z; ++k) {
      copy_rows(block + layout.index(var, region.lo.x, region.lo.y, k), layout.stride_y(), out, n.x,
                n.y, n.x);
      out += std::ptrdiff_t{n.x} * n.y;
    }
  }
}

void unpack_region(const BlockLayout& layout, double* block, Box region, const double* in) {
  if (region.empty()) return;
  const Int3 n = region.extent();
  for (int var = 0; var < layout.nvars(); ++var) {
    for (int k = region.lo.z; k < region.hi.z; ++k) {
      copy_rows(in, n.x, block + layout.index(var, region.lo.x, region.lo.y, k), layout.stride_y(),
                n.y, n.x);
      in += std::ptrdiff_t{n.x} * n.y;
    }
  }
}

void copy_region(const BlockLayout& layout, const double* from, Box from_region, double* to,
                 Box to_region) {
  if (from_region.extent() != to_region.extent()) {
    throw std::invalid_argument("copy_region: regions of different extents");
  }
  if (from_region.empty()) return;
  const Int3 n = from_region.extent();
  for (int var = 0; var < layout.nvars(); ++var) {
    for (int k = 0; k < n.z; ++k) {
      copy_rows(from + layout.index(var, from_region.lo.x, from_region.lo.y, from_region.lo.z + k),
                layout.stride_y(),
                to + layout.index(var, to_region.lo.x, to_region.lo.y, to_region.lo.z + k),
                layout.stride_y(), n.y, n.x);
    }
  }
}

}  // namespace tessera
