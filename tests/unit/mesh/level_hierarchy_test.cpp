// Level shapes of a multigrid hierarchy: tiles keep their size while a level has room for
// them, then one block shrinks with the level; bad specifications are named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera/mesh/level_hierarchy.hpp"

namespace tessera {
namespace {

TEST(LevelShapes, CoarseLevelsKeepTheTileAndLoseBlocksThenTheSingleBlockShrinks) {
  // NAS MG class S: 32^3 cells, 8^3 tiles, 5 levels (32, 16, 8, 4, 2 cells per axis).
  const auto shapes = level_shapes({.cells = {32, 32, 32}, .block_cells = {8, 8, 8}, .levels = 5});
  ASSERT_EQ(shapes.size(), 5u);
  const std::vector<int> blocks{4, 2, 1, 1, 1};
  const std::vector<int> cells{8, 8, 8, 4, 2};
  for (int level = 0; level < 5; ++level) {
    EXPECT_EQ(shapes[level].blocks, (Int3{blocks[level], blocks[level], blocks[level]}));
    EXPECT_EQ(shapes[level].block_cells, (Int3{cells[level], cells[level], cells[level]}));
    EXPECT_EQ(shapes[level].cells().x, 32 >> level);
  }
}

TEST(LevelShapes, AFlatAxisStaysFlatOnEveryLevel) {
  const auto shapes = level_shapes({.cells = {64, 32, 1}, .block_cells = {16, 16, 1}, .levels = 4});
  EXPECT_EQ(shapes[0].blocks, (Int3{4, 2, 1}));
  EXPECT_EQ(shapes[1].blocks, (Int3{2, 1, 1}));
  EXPECT_EQ(shapes[2].blocks, (Int3{1, 1, 1}));
  EXPECT_EQ(shapes[2].block_cells, (Int3{16, 8, 1}));
  EXPECT_EQ(shapes[3].block_cells, (Int3{8, 4, 1}));
}

std::string error_of(const HierarchySpec& spec) {
  try {
    level_shapes(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(LevelShapes, RejectsTooManyLevelsAndTilesThatDoNotDivideALevel) {
  EXPECT_NE(
      error_of({.cells = {8, 8, 8}, .block_cells = {4, 4, 4}, .levels = 5}).find("too many levels"),
      std::string::npos);
  EXPECT_NE(error_of({.cells = {12, 12, 12}, .block_cells = {3, 3, 3}, .levels = 4})
                .find("too many levels"),
            std::string::npos);
  EXPECT_NE(error_of({.cells = {48, 48, 48}, .block_cells = {16, 16, 16}, .levels = 2})
                .find("do not divide"),
            std::string::npos);
  EXPECT_NE(error_of({.cells = {8, 8, 8}, .block_cells = {4, 4, 4}, .levels = 0}).find("levels"),
            std::string::npos);
  EXPECT_EQ(error_of({.cells = {8, 8, 8}, .block_cells = {4, 4, 4}, .levels = 4}), "");
}

}  // namespace
}  // namespace tessera
