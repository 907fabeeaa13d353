// PlanePipeline: `depth` iterations in one pass over a block give bitwise the values of
// `depth` plain Jacobi sweeps over the whole domain, for blocks at the domain boundary and
// inside it, on non-cubic odd shapes, in 3-D and with a flat z axis; ghosts it must not read
// (deeper than the boundary layer) hold NaN, so reading one would show.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tessera/mesh/block_layout.hpp"
#include "jacobi7/plane_pipeline.hpp"

namespace tessera {
namespace {

constexpr double kCx = 0.31, kCy = 0.27, kCz = 0.19, kScale = 0.41;

// The update both sides use: the pipeline is judged on the values it feeds the kernel.
double update(double rhs, double left, double right, double south, double north, double below,
              double above) {
  return (rhs + kCx * (left + right) + kCy * (south + north) + kCz * (below + above)) * kScale;
}

// The whole domain with a frame of one boundary cell on each side (flat axes: none).
struct Domain {
  Int3 cells;
  bool flat_z;
  std::vector<double> values;
  std::vector<double> rhs;

  int frame(int axis) const { return axis == 2 && flat_z ? 0 : 1; }
  std::size_t at(int i, int j, int k) const {
    const int sx = cells.x + 2, sy = cells.y + 2;
    return static_cast<std::size_t>(((k + frame(2)) * sy + (j + 1)) * sx + (i + 1));
  }
  bool holds(int i, int j, int k) const {
    return i >= -1 && i <= cells.x && j >= -1 && j <= cells.y && k >= -frame(2) &&
           k < cells.z + frame(2);
  }
  bool interior(int i, int j, int k) const {
    return i >= 0 && i < cells.x && j >= 0 && j < cells.y && k >= 0 && k < cells.z;
  }
};

Domain make_domain(Int3 cells, bool flat_z) {
  Domain d{cells, flat_z, {}, {}};
  const std::size_t size =
      static_cast<std::size_t>(cells.x + 2) * (cells.y + 2) * (cells.z + 2 * d.frame(2));
  d.values.resize(size);
  d.rhs.resize(size);
  for (std::size_t c = 0; c < size; ++c) {
    // Irregular values, boundary included (held fixed by the sweeps).
    d.values[c] = std::sin(0.7 * static_cast<double>(c)) + 0.01 * static_cast<double>(c % 13);
    d.rhs[c] = std::cos(0.3 * static_cast<double>(c));
  }
  return d;
}

// One plain sweep over the domain's interior; the boundary frame stays.
void plain_sweep(Domain& d) {
  std::vector<double> next = d.values;
  const Int3 n = d.cells;
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        const double c = d.values[d.at(i, j, k)];
        const double below = d.flat_z ? c : d.values[d.at(i, j, k - 1)];
        const double above = d.flat_z ? c : d.values[d.at(i, j, k + 1)];
        next[d.at(i, j, k)] =
            update(d.rhs[d.at(i, j, k)], d.values[d.at(i - 1, j, k)], d.values[d.at(i + 1, j, k)],
                   d.values[d.at(i, j - 1, k)], d.values[d.at(i, j + 1, k)], below, above);
      }
  d.values.swap(next);
}

struct PipelineCase {
  Int3 blocks;
  Int3 cells;
  bool flat_z;
};

void expect_pipeline_matches_sweeps(const PipelineCase& c, int depth, int rows_per_turn = 0) {
  const Int3 global{c.blocks.x * c.cells.x, c.blocks.y * c.cells.y, c.blocks.z * c.cells.z};
  const Domain start = make_domain(global, c.flat_z);
  Domain reference = start;
  for (int s = 0; s < depth; ++s) plain_sweep(reference);

  const BlockLayout layout(c.cells, {depth, depth, c.flat_z ? 0 : depth}, 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> in(layout.size()), out(layout.size()), scratch;
  for (int bz = 0; bz < c.blocks.z; ++bz)
    for (int by = 0; by < c.blocks.y; ++by)
      for (int bx = 0; bx < c.blocks.x; ++bx) {
        const Int3 origin{bx * c.cells.x, by * c.cells.y, bz * c.cells.z};
        const Int3 g = layout.ghost();
        std::fill(in.begin(), in.end(), nan);
        std::fill(out.begin(), out.end(), nan);
        for (int k = -g.z; k < c.cells.z + g.z; ++k)
          for (int j = -g.y; j < c.cells.y + g.y; ++j)
            for (int i = -g.x; i < c.cells.x + g.x; ++i) {
              const int gi = origin.x + i, gj = origin.y + j, gk = origin.z + k;
              if (start.holds(gi, gj, gk))
                in[layout.index(0, i, j, k)] = start.values[start.at(gi, gj, gk)];
            }
        const PlanePipeline pipeline(layout, depth,
                                     {bx == 0, bx == c.blocks.x - 1, by == 0, by == c.blocks.y - 1,
                                      bz == 0, bz == c.blocks.z - 1},
                                     rows_per_turn);
        std::vector<int> rows(static_cast<std::size_t>(depth) + 1, 0);
        // Prefetched only: any array of the layout will do (here the input itself).
        const double* const fields[] = {in.data()};
        pipeline.run(
            in.data(), out.data(), scratch,
            [&](int level, Int3 first, int n, const PlaneRow& r, double* result) {
              ++rows[level];
              for (int i = 0; i < n; ++i) {
                const Int3 gc{origin.x + first.x + i, origin.y + first.y, origin.z + first.z};
                ASSERT_TRUE(start.interior(gc.x, gc.y, gc.z));
                const double left = i == 0 ? r.west : r.centre[i - 1];
                const double right = i == n - 1 ? r.east : r.centre[i + 1];
                result[i] = update(start.rhs[start.at(gc.x, gc.y, gc.z)], left, right, r.south[i],
                                   r.north[i], r.below[i], r.above[i]);
              }
            },
            fields);
        for (int l = 1; l <= depth; ++l) {
          const Box& e = pipeline.extent(l);
          EXPECT_EQ(rows[l], (e.hi.y - e.lo.y) * (e.hi.z - e.lo.z)) << "level " << l;
        }
        for (int k = 0; k < c.cells.z; ++k)
          for (int j = 0; j < c.cells.y; ++j)
            for (int i = 0; i < c.cells.x; ++i) {
              const double got = out[layout.index(0, i, j, k)];
              const double want =
                  reference.values[reference.at(origin.x + i, origin.y + j, origin.z + k)];
              ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0)
                  << "depth " << depth << ", block (" << bx << ", " << by << ", " << bz
                  << "), cell (" << i << ", " << j << ", " << k << "): " << got << " vs " << want;
            }
      }
}

TEST(PlanePipeline, DepthIterationsEqualPlainSweepsBitwiseOnEveryBlock) {
  // 3 x 3 x 3 blocks: each has a block inside the domain, on faces, edges and corners.
  for (int depth = 1; depth <= 4; ++depth) {
    expect_pipeline_matches_sweeps({{3, 3, 3}, {5, 7, 6}, false}, depth);
    expect_pipeline_matches_sweeps({{2, 3, 1}, {9, 4, 5}, false}, depth);
  }
}

TEST(PlanePipeline, LevelsTakingTurnsOfAFewRowsGiveTheSameBits) {
  // Planes of several turns and a part (grown by depth - 1 rows on each side), inside the
  // domain and at its faces; turns of 1 row are the finest interleaving.
  for (int rows_per_turn : {1, 3, 8})
    for (int depth = 2; depth <= 4; ++depth) {
      expect_pipeline_matches_sweeps({{3, 3, 3}, {5, 7, 6}, false}, depth, rows_per_turn);
      expect_pipeline_matches_sweeps({{2, 2, 2}, {6, 21, 4}, false}, depth, rows_per_turn);
    }
  for (int depth = 2; depth <= 4; ++depth)
    expect_pipeline_matches_sweeps({{3, 4, 1}, {6, 5, 1}, true}, depth, 2);
}

TEST(PlanePipeline, TakesTurnsOnlyWhenAStepsPlanesSpillL2) {
  // 64^3 at depth 4: 16 planes of 72 rows of 80 doubles (737 KB) fit 1 MB: whole planes.
  EXPECT_EQ(PlanePipeline(BlockLayout({64, 64, 64}, {4, 4, 4}, 1), 4, {}).rows_per_turn(), 72);
  // 256 x 64 x 64: rows of 272 doubles, 2.5 MB.
  EXPECT_EQ(PlanePipeline(BlockLayout({256, 64, 64}, {4, 4, 4}, 1), 4, {}).rows_per_turn(),
            PlanePipeline::kRowsPerTurn);
  EXPECT_EQ(PlanePipeline(BlockLayout({64, 64, 64}, {4, 4, 4}, 1), 4, {}, 5).rows_per_turn(), 5);
  EXPECT_THROW(PlanePipeline(BlockLayout({8, 8, 8}, {2, 2, 2}, 1), 2, {}, -1),
               std::invalid_argument);
}

TEST(PlanePipeline, OneBlockTouchingTheBoundaryEverywhere) {
  for (int depth = 1; depth <= 3; ++depth)
    expect_pipeline_matches_sweeps({{1, 1, 1}, {11, 6, 4}, false}, depth);
}

TEST(PlanePipeline, FlatZAxisReadsTheRowItselfAboveAndBelow) {
  for (int depth = 1; depth <= 4; ++depth)
    expect_pipeline_matches_sweeps({{3, 4, 1}, {6, 5, 1}, true}, depth);
}

TEST(PlanePipeline, RefusesGhostsShallowerThanTheDepth) {
  const BlockLayout layout({8, 8, 8}, {2, 2, 2}, 1);
  EXPECT_THROW(PlanePipeline(layout, 3, {}), std::invalid_argument);
  EXPECT_THROW(PlanePipeline(layout, 0, {}), std::invalid_argument);
  EXPECT_NO_THROW(PlanePipeline(layout, 2, {}));
}

TEST(PlanePipeline, ScratchHoldsThreePlanesPerInnerLevel) {
  const BlockLayout layout({32, 32, 32}, {3, 3, 3}, 1);
  EXPECT_EQ(PlanePipeline(layout, 1, {}).scratch_doubles(), 0u);
  const PlanePipeline pipeline(layout, 3, {});
  // Planes of (32 + 2 * 3) rows, each row line-aligned: 8 + 32 + 3 rounded up to 48.
  EXPECT_EQ(pipeline.scratch_doubles(), 3u * 2u * 48u * 38u);
  EXPECT_EQ(pipeline.extent(1), (Box{{-2, -2, -2}, {34, 34, 34}}));
  EXPECT_EQ(pipeline.extent(3), (Box{{0, 0, 0}, {32, 32, 32}}));
}

}  // namespace
}  // namespace tessera
