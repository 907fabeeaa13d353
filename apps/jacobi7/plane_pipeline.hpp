#pragma once
// Temporal blocking inside one block: `depth` iterations of a 7-point stencil in one pass
// over the block (overlapped, "ghost-zone" tiling with a z-wavefront). The input needs
// ghosts `depth` cells deep; iteration l is computed on the block grown by depth - l cells
// (not past the domain boundary), so the last one covers exactly the interior and needs
// nothing from the neighbours in between. Iteration l keeps only a ring of 3 planes in a
// small scratch array, filled plane by plane one step behind iteration l - 1, so the input
// (and any static field the row kernel reads) is streamed from memory once and the output
// written once per `depth` iterations, instead of once per iteration.
//
// Only iteration 1 reads memory. Computed plane after plane, a tile of large planes streams
// its inputs in bursts (iteration 1's plane, a quarter of the work at depth 4) faster than one
// core can fetch them, and leaves the memory idle during the other iterations' planes. So the
// levels take turns by a few rows (rows_per_turn()): iteration l computes the rows of its plane
// that iteration l - 1 has just made ready, while iterations 2..depth prefetch into L2 the input
// lines of iteration 1's next turn.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
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
  /// may not be flat. `rows_per_turn` >= 0, 0 to choose (rows_per_turn()). Throws
  /// std::invalid_argument naming the value otherwise.
  PlanePipeline(const BlockLayout& layout, int depth, BoundaryFaces boundary, int rows_per_turn = 0)
      : layout_(layout), depth_(depth) {
    if (depth < 1) throw std::invalid_argument("depth must be >= 1, got " + std::to_string(depth));
    if (rows_per_turn < 0) {
      throw std::invalid_argument("rows per turn must be >= 0, got " +
                                  std::to_string(rows_per_turn));
    }
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
    // The planes a step reads (3 of the input, `depth` of a static field, 3 per inner level:
    // about 4 x depth) within L2: whole planes measured faster (64^3 blocks, 1-5 %); beyond
    // it, turns (128 x 64 x 64 and 256 x 64 x 64 blocks, 5-12 %).
    const bool planes_fit_l2 =
        4 * depth * plane_doubles_ * static_cast<std::ptrdiff_t>(sizeof(double)) <= kL2Bytes;
    rows_per_turn_ = rows_per_turn > 0 ? rows_per_turn
                     : planes_fit_l2   ? n.y + 2 * gy
                                       : kRowsPerTurn;
  }

  /// L2 per core of the machines measured (AMD Zen 4): where whole planes stop paying.
  static constexpr std::ptrdiff_t kL2Bytes = std::ptrdiff_t{1} << 20;

  int depth() const { return depth_; }
  /// Rows of a turn when the planes do not fit L2: small enough to spread the memory
  /// traffic, large enough that a level's rows y - 1 and y + 1 are still in L1 (each turn
  /// reads 2 rows of each level again from L2). 8 and 16 measured alike.
  static constexpr int kRowsPerTurn = 8;
  /// Rows iteration 1 computes before the later iterations take their turn: a whole plane
  /// when the planes a step reads fit L2 (kL2Bytes), else kRowsPerTurn.
  int rows_per_turn() const { return rows_per_turn_; }
  /// The cells iteration `level` (1..depth) computes; level depth is the interior.
  const Box& extent(int level) const { return extent_[level]; }
  /// Doubles of scratch a run needs (3 planes per iteration but the last).
  std::size_t scratch_doubles() const {
    return static_cast<std::size_t>(3 * (depth_ - 1)) * static_cast<std::size_t>(plane_doubles_);
  }

  /// Runs `depth` iterations from `in` (interior and ghosts as described above) into the
  /// interior of `out` (ghosts untouched); `in` and `out` must not overlap. `scratch` is
  /// resized to scratch_doubles() and one cache line if smaller (reuse one per thread). For every
  /// level l and row of extent(l), once, in increasing z then y within the level (the levels
  /// interleaved), calls row(l, first, n, inputs, result):
  /// it writes result[i] for 0 <= i < n from `inputs` (a PlaneRow) for the n cells starting at
  /// block cell `first` (Int3); the same expression at every level gives the bits of l
  /// plain sweeps. `result` is a row of `out` (cell first) for l == depth, scratch otherwise.
  /// `fields`: arrays with `in`'s layout that the row kernel reads at level 1 at its own cells
  /// (a static right-hand side), prefetched with `in` (a hint: nothing is read from them).
  template <class RowKernel>
  void run(const double* in, double* out, std::vector<double>& scratch, RowKernel&& row,
           std::span<const double* const> fields = {}) const {
    // One line more than the planes, so that they can start on a line as rows of `in` do.
    constexpr std::size_t line = BlockLayout::kRowAlignment;
    if (scratch.size() < scratch_doubles() + line) scratch.resize(scratch_doubles() + line);
    const std::size_t misaligned =
        reinterpret_cast<std::uintptr_t>(scratch.data()) / sizeof(double) % line;
    double* planes = scratch.data() + (misaligned == 0 ? 0 : line - misaligned);
    const int first = extent_[1].lo.z;
    const int last = extent_[depth_].hi.z - 1 + depth_ - 1;
    // Per level: whether it computes a plane at step t, and the rows of it done so far.
    std::vector<int> done(static_cast<std::size_t>(depth_) + 1);
    std::vector<char> active(static_cast<std::size_t>(depth_) + 1);
    NextTurn next{};
    for (int t = first; t <= last; ++t) {
      for (int l = 1; l <= depth_; ++l) {
        const int k = t - (l - 1);
        active[l] = k >= extent_[l].lo.z && k < extent_[l].hi.z;
        done[l] = extent_[l].lo.y;
      }
      // Level l's row j reads level l - 1's plane of this step at row j only (as `above`):
      // it may run once level l - 1 has done row j (or computes no plane at this step, which
      // happens only at a domain boundary, where `above` is the input's).
      for (bool more = true; more;) {
        more = false;
        for (int l = 1; l <= depth_; ++l) {
          if (!active[l]) continue;
          const int hi = extent_[l].hi.y;
          const int ready = l == 1 ? done[1] + rows_per_turn_ : active[l - 1] ? done[l - 1] : hi;
          const int to = ready < hi ? ready : hi;
          if (l == 1) {
            // Level 1's next turn, fetched into L2 while levels 2..depth compute this one
            // (at least depth - 1 turns of rows), a few rows after each of their rows.
            const int next_hi = std::min(hi, to + rows_per_turn_);
            const int rows = (next_hi - to) * (1 + static_cast<int>(fields.size()));
            const int steps = std::max(1, (depth_ - 1) * rows_per_turn_);
            next = {in, fields, t, to, next_hi, 0, (rows + steps - 1) / steps};
          }
          if (to > done[l]) run_rows(in, out, planes, l, t - (l - 1), done[l], to, row, next);
          done[l] = to > done[l] ? to : done[l];
          more = more || done[l] < hi;
        }
      }
    }
  }

 private:
  // Rows [lo, hi) of level 1's plane k in its next turn: the lines it reads first are
  // those of `in`'s plane k + 1 and of the fields' plane k.
  struct NextTurn {
    const double* in = nullptr;
    std::span<const double* const> fields;
    int k = 0;
    int lo = 0;
    int hi = 0;
    int cursor = 0;         // rows prefetched so far: `in`'s, then each field's
    int rows_per_step = 0;  // after each row of levels 2..depth
  };

  void prefetch_some(NextTurn& next) const {
    const Box& e = extent_[1];
    const int rows = next.hi - next.lo;
    const int total = rows * (1 + static_cast<int>(next.fields.size()));
    const int gz = flat_[2] ? 0 : 1;
    for (int r = 0; r < next.rows_per_step && next.cursor < total; ++r, ++next.cursor) {
      const int array = next.cursor / rows, j = next.lo + next.cursor % rows;
      const double* row = array == 0 ? next.in + layout_.index(0, 0, j, next.k + gz)
                                     : next.fields[static_cast<std::size_t>(array - 1)] +
                                           layout_.index(0, 0, j, next.k);
      constexpr std::ptrdiff_t line = BlockLayout::kRowAlignment;
      for (std::ptrdiff_t i = e.lo.x / line * line - line; i <= e.hi.x; i += line)
        __builtin_prefetch(row + i, 0, 2);  // locality 2: into L2 (prefetcht1)
    }
  }

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

  // Level l < depth's (0: the input's) plane k for reading, as row j = 0 at cell i = 0 of the
  // scratch (null where level l holds no plane k or l = 0) and of the input; rows outside
  // level l's extent are only asked for beyond a domain boundary, where every level holds the
  // input's values.
  struct SourcePlane {
    const double* scratch;
    const double* input;
  };

  SourcePlane source_plane(const double* in, double* scratch, int l, int k) const {
    const bool held = l > 0 && k >= extent_[l].lo.z && k < extent_[l].hi.z;
    return {held ? scratch_row(scratch, l, 0, k) : nullptr, in + layout_.index(0, 0, 0, k)};
  }

  // Row j of a source plane of level l.
  const double* source_row(const SourcePlane& plane, int l, int j) const {
    if (plane.scratch && j >= extent_[l].lo.y && j < extent_[l].hi.y)
      return plane.scratch + j * stride_y_;
    return plane.input + j * layout_.stride_y();
  }

  // Rows [j0, j1) of level l's plane k. Pointers step by rows from per-plane bases: looked up
  // per row and neighbour, they cost about 100 instructions more per row (cachegrind, AVX2
  // build of a 256 x 64 x 64 tile at depth 4: 41.0 M instructions against 38.9 M).
  template <class RowKernel>
  void run_rows(const double* in, double* out, double* scratch, int l, int k, int j0, int j1,
                RowKernel& row, NextTurn& next) const {
    const Box& e = extent_[l];
    const Box& prior = extent_[l > 1 ? l - 1 : 1];  // level l - 1's (unused for l = 1)
    const int n = e.hi.x - e.lo.x;
    const SourcePlane here = source_plane(in, scratch, l - 1, k);
    const SourcePlane below = source_plane(in, scratch, l - 1, k - 1);
    const SourcePlane above = source_plane(in, scratch, l - 1, k + 1);
    double* const result_base =
        l == depth_ ? out + layout_.index(0, e.lo.x, 0, k) : scratch_row(scratch, l, 0, k) + e.lo.x;
    const std::ptrdiff_t result_stride = l == depth_ ? layout_.stride_y() : stride_y_;
    const bool west_outside = l == 1 || e.lo.x - 1 < prior.lo.x;
    const bool east_outside = l == 1 || e.hi.x >= prior.hi.x;
    for (int j = j0; j < j1; ++j) {
      const double* centre = source_row(here, l - 1, j);
      PlaneRow r{};
      r.centre = centre + e.lo.x;
      r.south = flat_[1] ? r.centre : source_row(here, l - 1, j - 1) + e.lo.x;
      r.north = flat_[1] ? r.centre : source_row(here, l - 1, j + 1) + e.lo.x;
      r.below = flat_[2] ? r.centre : source_row(below, l - 1, j) + e.lo.x;
      r.above = flat_[2] ? r.centre : source_row(above, l - 1, j) + e.lo.x;
      // Beyond the x ends: level l - 1's value, or the input's beyond a domain boundary.
      const double* input_row = here.input + j * layout_.stride_y();
      r.west = west_outside ? input_row[e.lo.x - 1] : centre[e.lo.x - 1];
      r.east = east_outside ? input_row[e.hi.x] : centre[e.hi.x];
      row(l, Int3{e.lo.x, j, k}, n, static_cast<const PlaneRow&>(r),
          result_base + j * result_stride);
      if (l > 1) prefetch_some(next);
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
  int rows_per_turn_ = 1;
};

}  // namespace tessera
