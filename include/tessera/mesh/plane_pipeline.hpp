#pragma once
// Temporal blocking inside one block: `depth` iterations of a 7-point stencil in one pass
// over the block (overlapped, "ghost-zone" tiling with a z-wavefront). The input needs
// ghosts `depth` cells deep; iteration l is computed on the block grown by depth - l cells
// (not past the domain boundary), so the last one covers exactly the interior and needs
// nothing from the neighbours in between. Iteration l keeps only a ring of 3 planes in a
// small scratch array, filled plane by plane one step behind iteration l - 1, so the input
// (and any static field the row kernel reads) is streamed from memory once and the output
// written once per `depth` iterations, instead of once per iteration.

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/mesh/block_layout.hpp"
#include "tessera/mesh/box.hpp"

namespace tessera {

/// What a 7-point stencil reads to update one row of n cells: the row itself (`centre[i]`
/// is cell i of the row, 0 <= i < n), the values just beyond its two x ends, and the rows
/// beyond it along y (south/north) and z (below/above), each indexed like `centre`.
struct PlaneRow {
  const double* centre;
  const double* south;
  const double* north;
  const double* below;
  const double* above;
  double west;
  double east;
};

/// The pipeline of one block shape and depth. Cells beyond a face marked as domain boundary
/// keep the input's value there (layer 1 of its ghosts) through all iterations, as in plain
/// sweeps that never write ghosts there; a flat axis (ghost width 0, one cell) reads the row
/// itself as both neighbours. Immutable; one object may serve concurrent runs, each with its
/// own scratch.
class PlanePipeline {
 public:
  /// Faces in the order -x, +x, -y, +y, -z, +z.
  using BoundaryFaces = std::array<bool, 6>;

  /// `layout` is the input's and output's (one variable used); `depth` >= 1; every axis
  /// that is not flat (ghost width 0 and one cell) needs ghosts at least `depth` deep, x
  /// may not be flat. Throws std::invalid_argument naming the value otherwise.
  PlanePipeline(const BlockLayout& layout, int depth, BoundaryFaces boundary)
      : layout_(layout), depth_(depth) {
    if (depth < 1) throw std::invalid_argument("depth must be >= 1, got " + std::to_string(depth));
    const Int3 n = layout.cells(), g = layout.ghost();
    for (int a = 0; a < 3; ++a) {
      flat_[a] = g[a] == 0 && n[a] == 1;
      if ((a == 0 && flat_[a]) || (!flat_[a] && g[a] < depth)) {
        throw std::invalid_argument("plane pipeline of depth " + std::to_string(depth) +
                                    " needs ghosts at least that deep on axis " +
                                    std::to_string(a) + ", got " + std::to_string(g[a]));
      }
    }
    extent_.resize(static_cast<std::size_t>(depth) + 1);
    for (int l = 1; l <= depth; ++l) {
      const int grow = depth - l;
      Box& e = extent_[l];
      for (int a = 0; a < 3; ++a) {
        e.lo[a] = flat_[a] || boundary[2 * a] ? 0 : -grow;
        e.hi[a] = flat_[a] || boundary[2 * a + 1] ? n[a] : n[a] + grow;
      }
    }
    // One scratch plane covers x in [-depth, nx + depth) and y likewise, rows line-aligned.
    const int gy = flat_[1] ? 0 : depth;
    row_start_ = round_up_to_line(depth);
    stride_y_ = round_up_to_line(row_start_ + n.x + depth);
    plane_doubles_ = stride_y_ * (n.y + 2 * gy);
    plane_gy_ = gy;
  }

  int depth() const { return depth_; }
  /// The cells iteration `level` (1..depth) computes; level depth is the interior.
  const Box& extent(int level) const { return extent_[level]; }
  /// Doubles of scratch a run needs (3 planes per iteration but the last).
  std::size_t scratch_doubles() const {
    return static_cast<std::size_t>(3 * (depth_ - 1)) * static_cast<std::size_t>(plane_doubles_);
  }

  /// Runs `depth` iterations from `in` (interior and ghosts as described above) into the
  /// interior of `out` (ghosts untouched); `in` and `out` must not overlap. `scratch` is
  /// resized to scratch_doubles() and one cache line if smaller (reuse one per thread). For every
  /// level l and row of extent(l), in increasing z then y, calls row(l, first, n, inputs, result):
  /// it writes result[i] for 0 <= i < n from `inputs` (a PlaneRow) for the n cells starting at
  /// block cell `first` (Int3); the same expression at every level gives the bits of l
  /// plain sweeps. `result` is a row of `out` (cell first) for l == depth, scratch otherwise.
  template <class RowKernel>
  void run(const double* in, double* out, std::vector<double>& scratch, RowKernel&& row) const {
    // One line more than the planes, so that they can start on a line as rows of `in` do.
    constexpr std::size_t line = BlockLayout::kRowAlignment;
    if (scratch.size() < scratch_doubles() + line) scratch.resize(scratch_doubles() + line);
    const std::size_t misaligned =
        reinterpret_cast<std::uintptr_t>(scratch.data()) / sizeof(double) % line;
    double* planes = scratch.data() + (misaligned == 0 ? 0 : line - misaligned);
    const int first = extent_[1].lo.z;
    const int last = extent_[depth_].hi.z - 1 + depth_ - 1;
    for (int t = first; t <= last; ++t) {
      for (int l = 1; l <= depth_; ++l) {
        const int k = t - (l - 1);
        if (k < extent_[l].lo.z || k >= extent_[l].hi.z) continue;
        run_plane(in, out, planes, l, k, row);
      }
    }
  }

 private:
  static std::ptrdiff_t round_up_to_line(std::ptrdiff_t doubles) {
    constexpr std::ptrdiff_t line = BlockLayout::kRowAlignment;
    return (doubles + line - 1) / line * line;
  }

  // Row (j, k) of level l < depth in its ring of 3 planes, at cell i = 0.
  double* scratch_row(double* scratch, int l, int j, int k) const {
    const int slot = ((k % 3) + 3) % 3;
    return scratch + static_cast<std::ptrdiff_t>(3 * (l - 1) + slot) * plane_doubles_ +
           static_cast<std::ptrdiff_t>(j + plane_gy_) * stride_y_ + row_start_;
  }

  // Row (j, k) of level l < depth (0 = the input) at cell i = 0, for reading. Rows outside
  // level l's extent are only asked for beyond a domain boundary, where every level holds
  // the input's values.
  const double* row_of(const double* in, double* scratch, int l, int j, int k) const {
    if (l == 0 || !extent_[l].contains({extent_[l].lo.x, j, k}))
      return in + layout_.index(0, 0, j, k);
    return scratch_row(scratch, l, j, k);
  }

  template <class RowKernel>
  void run_plane(const double* in, double* out, double* scratch, int l, int k,
                 RowKernel& row) const {
    const Box& e = extent_[l];
    const Box& prior = extent_[l > 1 ? l - 1 : 1];  // level l - 1's (unused for l = 1)
    const int n = e.hi.x - e.lo.x;
    for (int j = e.lo.y; j < e.hi.y; ++j) {
      const double* centre = row_of(in, scratch, l - 1, j, k);
      PlaneRow r{};
      r.centre = centre + e.lo.x;
      r.south = flat_[1] ? r.centre : row_of(in, scratch, l - 1, j - 1, k) + e.lo.x;
      r.north = flat_[1] ? r.centre : row_of(in, scratch, l - 1, j + 1, k) + e.lo.x;
      r.below = flat_[2] ? r.centre : row_of(in, scratch, l - 1, j, k - 1) + e.lo.x;
      r.above = flat_[2] ? r.centre : row_of(in, scratch, l - 1, j, k + 1) + e.lo.x;
      // Beyond the x ends: level l - 1's value, or the input's beyond a domain boundary.
      const double* input_row = in + layout_.index(0, 0, j, k);
      const bool west_outside = l == 1 || e.lo.x - 1 < prior.lo.x;
      const bool east_outside = l == 1 || e.hi.x >= prior.hi.x;
      r.west = west_outside ? input_row[e.lo.x - 1] : centre[e.lo.x - 1];
      r.east = east_outside ? input_row[e.hi.x] : centre[e.hi.x];
      double* result = l == depth_ ? out + layout_.index(0, e.lo.x, j, k)
                                   : scratch_row(scratch, l, j, k) + e.lo.x;
      row(l, Int3{e.lo.x, j, k}, n, static_cast<const PlaneRow&>(r), result);
    }
  }

  BlockLayout layout_;
  int depth_;
  std::array<bool, 3> flat_{};
  std::vector<Box> extent_;  // by level, 1..depth
  std::ptrdiff_t row_start_ = 0;
  std::ptrdiff_t stride_y_ = 0;
  std::ptrdiff_t plane_doubles_ = 0;
  int plane_gy_ = 0;
};

}  // namespace tessera
