// Block storage order, ghost and send regions, and region copies.
#include <gtest/gtest.h>

#include <vector>

#include "tessera/mesh/block_layout.hpp"

namespace tessera {
namespace {

TEST(BlockLayout, StoresVariablesOneAfterAnotherWithIFastest) {
  const BlockLayout layout({4, 3, 2}, {1, 1, 1}, 2);
  EXPECT_EQ(layout.stride_y(), 8);  // 4 + 2 ghosts, padded to a cache line
  EXPECT_EQ(layout.stride_z(), 8 * 5);
  EXPECT_EQ(layout.stride_var(), 8 * 5 * 4);
  EXPECT_EQ(layout.index(0, -1, -1, -1), 7);
  EXPECT_EQ(layout.index(0, 0, 0, 0), 8 + 8 + 40);
  EXPECT_EQ(layout.index(0, 1, 0, 0) - layout.index(0, 0, 0, 0), 1);
  EXPECT_EQ(layout.index(1, 4, 3, 2), static_cast<std::ptrdiff_t>(layout.size()) - 1);
}

TEST(BlockLayout, RowInteriorsStartOnCacheLinesAndRowsDoNotOverlap) {
  for (const Int3 cells : {Int3{128, 4, 4}, Int3{13, 3, 2}, Int3{16, 2, 1}}) {
    for (const int gx : {0, 1, 2, 4}) {
      const BlockLayout layout(cells, {gx, 1, cells.z > 1 ? 1 : 0}, 2);
      std::vector<int> owners(layout.size(), 0);
      for (int var = 0; var < 2; ++var)
        for (int k = -layout.ghost().z; k < cells.z + layout.ghost().z; ++k)
          for (int j = -1; j <= cells.y; ++j) {
            EXPECT_EQ(layout.index(var, 0, j, k) % BlockLayout::kRowAlignment, 0);
            for (int i = -gx; i < cells.x + gx; ++i) ++owners.at(layout.index(var, i, j, k));
          }
      for (const int owner_count : owners) EXPECT_LE(owner_count, 1);
    }
  }
}

TEST(BlockLayout, PackedRowsKeepTheOrderWithoutPadding) {
  const BlockLayout padded({4, 3, 2}, {1, 1, 1}, 2);
  const BlockLayout packed({4, 3, 2}, {1, 1, 1}, 2, 1);
  EXPECT_EQ(packed.row_alignment(), 1);
  EXPECT_EQ(packed.stride_y(), 6);  // 4 + 2 ghosts
  EXPECT_EQ(packed.stride_z(), 6 * 5);
  EXPECT_EQ(packed.stride_var(), 6 * 5 * 4);
  EXPECT_EQ(packed.index(0, -1, -1, -1), 0);
  EXPECT_EQ(packed.index(1, 4, 3, 2), static_cast<std::ptrdiff_t>(packed.size()) - 1);
  EXPECT_EQ(packed.size(), std::size_t{2 * 6 * 5 * 4});
  // Every cell, ghosts included, has its own offset, and both layouts walk the cells in
  // the same order (offsets increase with var, k, j, i in that order of significance).
  std::vector<int> owners(packed.size(), 0);
  std::ptrdiff_t last_packed = -1, last_padded = -1;
  for (int var = 0; var < 2; ++var)
    for (int k = -1; k <= 2; ++k)
      for (int j = -1; j <= 3; ++j)
        for (int i = -1; i <= 4; ++i) {
          ++owners.at(static_cast<std::size_t>(packed.index(var, i, j, k)));
          EXPECT_GT(packed.index(var, i, j, k), last_packed);
          EXPECT_GT(padded.index(var, i, j, k), last_padded);
          last_packed = packed.index(var, i, j, k);
          last_padded = padded.index(var, i, j, k);
        }
  for (const int owner_count : owners) EXPECT_EQ(owner_count, 1);
  EXPECT_THROW(BlockLayout({2, 2, 2}, {1, 1, 1}, 1, 0), std::invalid_argument);
}

TEST(BlockLayout, RejectsGhostWiderThanTheBlock) {
  EXPECT_THROW(BlockLayout({2, 2, 2}, {3, 1, 1}, 1), std::invalid_argument);
  EXPECT_THROW(BlockLayout({2, 0, 2}, {1, 1, 1}, 1), std::invalid_argument);
  EXPECT_THROW(BlockLayout({2, 2, 2}, {1, 1, 1}, 0), std::invalid_argument);
}

TEST(BlockLayout, GhostAndSendRegionsOfFacesEdgesAndCorners) {
  const BlockLayout layout({8, 6, 4}, {2, 2, 2}, 1);
  EXPECT_EQ(layout.ghost_region({{-1, 0, 0}}), (Box{{-2, 0, 0}, {0, 6, 4}}));
  EXPECT_EQ(layout.send_region({{-1, 0, 0}}), (Box{{0, 0, 0}, {2, 6, 4}}));
  EXPECT_EQ(layout.ghost_region({{0, 1, 0}}), (Box{{0, 6, 0}, {8, 8, 4}}));
  EXPECT_EQ(layout.send_region({{0, 1, 0}}), (Box{{0, 4, 0}, {8, 6, 4}}));
  EXPECT_EQ(layout.ghost_region({{1, 0, -1}}), (Box{{8, 0, -2}, {10, 6, 0}}));
  EXPECT_EQ(layout.send_region({{1, 1, 1}}), (Box{{6, 4, 2}, {8, 6, 4}}));
  for (int index = 0; index < Direction::kCount; ++index) {
    const Direction d = Direction::from_index(index);
    EXPECT_EQ(layout.ghost_region(d).extent(), layout.send_region(d).extent());
  }
}

TEST(BlockLayout, PackThenUnpackRestoresTheRegionOfEveryVariable) {
  const BlockLayout layout({5, 4, 3}, {1, 1, 1}, 3);
  std::vector<double> block(layout.size());
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<double>(i);
  const Box region{{1, 0, 2}, {4, 4, 3}};
  std::vector<double> buffer(region.cells() * 3, -1);
  pack_region(layout, block.data(), region, buffer.data());
  EXPECT_EQ(buffer[0], block[layout.index(0, 1, 0, 2)]);
  EXPECT_EQ(buffer[1], block[layout.index(0, 2, 0, 2)]);
  EXPECT_EQ(buffer[3], block[layout.index(0, 1, 1, 2)]);
  EXPECT_EQ(buffer[region.cells()], block[layout.index(1, 1, 0, 2)]);
  std::vector<double> other(layout.size(), 0.0);
  unpack_region(layout, other.data(), region, buffer.data());
  for (int var = 0; var < 3; ++var)
    for (int k = -1; k < 4; ++k)
      for (int j = -1; j < 5; ++j)
        for (int i = -1; i < 6; ++i) {
          const auto at = layout.index(var, i, j, k);
          EXPECT_EQ(other[at], region.contains({i, j, k}) ? block[at] : 0.0);
        }
}

TEST(BlockLayout, CopyRegionMovesANeighboursFaceIntoTheGhosts) {
  const BlockLayout layout({4, 4, 4}, {1, 1, 1}, 2);
  std::vector<double> left(layout.size()), right(layout.size(), 0.0);
  for (std::size_t i = 0; i < left.size(); ++i) left[i] = 1.0 + static_cast<double>(i);
  const Direction towards_left{{-1, 0, 0}};
  copy_region(layout, left.data(), layout.send_region(towards_left.opposite()), right.data(),
              layout.ghost_region(towards_left));
  for (int var = 0; var < 2; ++var)
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(right[layout.index(var, -1, j, k)], left[layout.index(var, 3, j, k)]);
        EXPECT_EQ(right[layout.index(var, 0, j, k)], 0.0);
      }
  EXPECT_THROW(copy_region(layout, left.data(), layout.send_region({{1, 0, 0}}), right.data(),
                           layout.ghost_region({{0, 1, 0}})),
               std::invalid_argument);
}

}  // namespace
}  // namespace tessera
