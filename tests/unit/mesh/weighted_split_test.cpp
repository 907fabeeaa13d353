// The weighted split: consecutive parts of a curve whose costs match the ranks' speeds,
// each within one block's cost of its ideal share.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/mesh/weighted_split.hpp"

namespace tessera {
namespace {

// Every part's cost is within the largest block cost of speed / total speed of the total.
void expect_within_one_block(const std::vector<double>& costs, const std::vector<double>& speeds) {
  const std::vector<std::int64_t> counts = weighted_split(costs, speeds);
  ASSERT_EQ(counts.size(), speeds.size());
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}),
            static_cast<std::int64_t>(costs.size()));
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  const double speed_sum = std::accumulate(speeds.begin(), speeds.end(), 0.0);
  const double largest = costs.empty() ? 0.0 : *std::max_element(costs.begin(), costs.end());
  std::size_t b = 0;
  for (std::size_t r = 0; r < speeds.size(); ++r) {
    ASSERT_GE(counts[r], 0);
    double load = 0;
    for (std::int64_t i = 0; i < counts[r]; ++i) load += costs[b++];
    const double ideal = total * speeds[r] / speed_sum;
    EXPECT_LE(std::abs(load - ideal), largest * (1 + 1e-12)) << "part " << r;
  }
}

TEST(WeightedSplit, EqualCostsAndSpeedsGiveEqualCounts) {
  const std::vector<double> costs(12, 1.0);
  EXPECT_EQ(weighted_split(costs, std::vector<double>(3, 2.0)),
            (std::vector<std::int64_t>{4, 4, 4}));
}

TEST(WeightedSplit, ARankTwiceAsFastGetsTwiceTheWork) {
  // The layout of bench/uneven-ranks: two ranks share a core, one has a core alone.
  const std::vector<double> costs(64, 3.0);
  EXPECT_EQ(weighted_split(costs, std::vector<double>{0.5, 0.5, 1.0}),
            (std::vector<std::int64_t>{16, 16, 32}));
}

TEST(WeightedSplit, ExpensiveBlocksGoToFewerRanks) {
  // The first four blocks cost as much as the other twelve.
  std::vector<double> costs(16, 1.0);
  for (int b = 0; b < 4; ++b) costs[b] = 3.0;
  EXPECT_EQ(weighted_split(costs, std::vector<double>{1.0, 1.0}),
            (std::vector<std::int64_t>{4, 12}));
}

TEST(WeightedSplit, RandomCostsAndSpeedsStayWithinOneBlockOfIdeal) {
  std::mt19937_64 rng(40);
  std::uniform_real_distribution<double> cost(0.0, 10.0), speed(0.1, 4.0);
  std::uniform_int_distribution<int> blocks(0, 300), parts(1, 17);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<double> costs(static_cast<std::size_t>(blocks(rng)));
    for (double& c : costs) c = trial % 5 == 0 ? 1.0 : cost(rng);
    std::vector<double> speeds(static_cast<std::size_t>(parts(rng)));
    for (double& s : speeds) s = speed(rng);
    SCOPED_TRACE(trial);
    expect_within_one_block(costs, speeds);
  }
}

TEST(WeightedSplit, MorePartsThanBlocksLeavesSomeEmpty) {
  const std::vector<double> costs{1.0, 1.0};
  const auto counts = weighted_split(costs, std::vector<double>(5, 1.0));
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}), 2);
  expect_within_one_block(costs, std::vector<double>(5, 1.0));
  EXPECT_EQ(weighted_split({}, std::vector<double>(3, 1.0)), (std::vector<std::int64_t>{0, 0, 0}));
}

TEST(WeightedSplit, RejectsBadInput) {
  const std::vector<double> costs{1.0};
  EXPECT_THROW(weighted_split(costs, {}), std::invalid_argument);
  EXPECT_THROW(weighted_split(costs, std::vector<double>{0.0}), std::invalid_argument);
  EXPECT_THROW(weighted_split(std::vector<double>{-1.0}, std::vector<double>{1.0}),
               std::invalid_argument);
}

TEST(WeightedSplit, AUniformMeshBuiltFromCountsOwnsThoseRanges) {
  const Int3 blocks{4, 4, 2}, cells{4, 4, 4};
  const std::vector<std::int64_t> counts{5, 0, 20, 7};
  std::vector<int> owner_seen(32, -1);
  for (int r = 0; r < 4; ++r) {
    const UniformMesh mesh(blocks, cells, 1, r, 4, {}, counts);
    EXPECT_EQ(mesh.counts(), counts);
    EXPECT_EQ(mesh.local_block_count(), counts[r]);
    for (const MeshBlock& b : mesh.local_blocks()) {
      EXPECT_EQ(mesh.owner(b.id), r);
      owner_seen[static_cast<std::size_t>(b.curve_index)] = r;
      for (int d = 0; d < Direction::kCount; ++d) {
        if (b.neighbour[d] == kNoBlock) continue;
        const int expected = b.neighbour_rank[d];
        EXPECT_EQ(mesh.owner(b.neighbour[d]), expected);
        EXPECT_EQ(b.neighbour_local[d] != kNotLocal, expected == r);
      }
    }
  }
  for (std::size_t p = 0; p < owner_seen.size(); ++p) {
    const int expected = p < 5 ? 0 : (p < 25 ? 2 : 3);
    EXPECT_EQ(owner_seen[p], expected) << p;
  }
  EXPECT_THROW(UniformMesh(blocks, cells, 1, 0, 4, {}, std::vector<std::int64_t>{5, 0, 20, 6}),
               std::invalid_argument);
  EXPECT_THROW(UniformMesh(blocks, cells, 1, 0, 2, {}, std::vector<std::int64_t>{40, -8}),
               std::invalid_argument);
}

}  // namespace
}  // namespace tessera
