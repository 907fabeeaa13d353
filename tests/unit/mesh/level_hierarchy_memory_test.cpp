// LevelHierarchy::memory_estimate adds up every level's mesh estimate (fields, ghosts,
// halo buffers), the per-level extras and the transfers' pair buffers, without building
// anything, so it also answers for hierarchies far too large to build.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "tessera/mesh/level_hierarchy.hpp"

namespace tessera {
namespace {

std::map<std::string, double> items_of(const MemoryEstimate& e) {
  return {e.items.begin(), e.items.end()};
}

HierarchySpec npb_like(int nx, int block, int levels) {
  HierarchySpec spec;
  spec.cells = {nx, nx, nx};
  spec.block_cells = {block, block, block};
  spec.levels = levels;
  spec.periodic = Periodicity::all();
  return spec;
}

TEST(LevelHierarchyMemory, FieldsAndGhostsAreTheSumOverLevels) {
  const HierarchySpec spec = npb_like(64, 16, 5);
  for (int ranks : {1, 3, 64}) {
    double fields = 0, ghosts = 0;
    const std::vector<LevelShape> shapes = level_shapes(spec);
    for (std::size_t l = 0; l < shapes.size(); ++l) {
      const auto level = items_of(UniformMesh::memory_estimate(
          shapes[l].blocks, shapes[l].block_cells, 1, ranks, l == 0 ? 3 : 2, 1));
      fields += level.at("fields");
      ghosts += level.at("ghosts");
    }
    const auto total = items_of(LevelHierarchy::memory_estimate(spec, ranks, 2, 1));
    EXPECT_DOUBLE_EQ(total.at("fields"), fields) << ranks << " ranks";
    EXPECT_DOUBLE_EQ(total.at("ghosts"), ghosts) << ranks << " ranks";
    EXPECT_GT(total.at("metadata"), 0);
    EXPECT_EQ(total.count("message buffers"), ranks > 1 ? 1u : 0u) << ranks << " ranks";
  }
}

TEST(LevelHierarchyMemory, CoarseLevelsAddAboutASeventhIn3D) {
  // Fields of one rank: 2 fields on 256^3 cells and on every coarser level (1/8 each).
  const auto one = items_of(LevelHierarchy::memory_estimate(npb_like(256, 32, 1), 1, 2, 0));
  const auto all = items_of(LevelHierarchy::memory_estimate(npb_like(256, 32, 8), 1, 2, 0));
  EXPECT_DOUBLE_EQ(one.at("fields"), 2.0 * 256 * 256 * 256 * sizeof(double));
  EXPECT_GT(all.at("fields"), one.at("fields") * 8 / 7 * 0.999);
  EXPECT_LT(all.at("fields"), one.at("fields") * 8 / 7 * 1.001);
}

TEST(LevelHierarchyMemory, AbsurdSizesNeitherOverflowNorThrow) {
  // 2^60 cells: exabytes, finite.
  const MemoryEstimate e = LevelHierarchy::memory_estimate(npb_like(1 << 20, 64, 20), 2, 2, 1);
  EXPECT_GT(e.total(), 1e18);
  EXPECT_TRUE(std::isfinite(e.total()));
  EXPECT_THROW(LevelHierarchy::memory_estimate(npb_like(64, 16, 8), 1, 2, 1),
               std::invalid_argument);
}

}  // namespace
}  // namespace tessera
