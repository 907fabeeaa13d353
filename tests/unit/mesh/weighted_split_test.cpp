// The weighted split: consecutive parts of a curve whose costs match the ranks' speeds,
// each within one block's cost of its ideal share.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "tessera/balance_options.hpp"
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

TEST(WeightedSplit, NoSlowPartTakesABlockMoreThanTheBottleneckNeeds) {
  // 256 parts, every other one half as fast, 8 blocks of cost about 1 per part (a measured
  // 0-10 % spread): the least bottleneck gives each slow part 5 blocks and each fast one
  // 10-11. Cutting each boundary nearest to its ideal position gives some slow parts 6, a
  // step about 12 % longer.
  std::mt19937_64 rng(256);
  std::uniform_real_distribution<double> spread(0.0, 0.1);
  std::vector<double> costs(2048);
  for (double& c : costs) c = 1.0 + spread(rng);
  std::vector<double> speeds(256);
  for (std::size_t r = 0; r < speeds.size(); ++r) speeds[r] = r % 2 == 0 ? 2.0 : 1.0;
  const std::vector<std::int64_t> counts = weighted_split(costs, speeds);
  for (std::size_t r = 1; r < counts.size(); r += 2) EXPECT_EQ(counts[r], 5) << "part " << r;
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  EXPECT_LE(split_time(costs, speeds, counts), total / 384 * 1.07);
}

TEST(WeightedSplit, TheBottleneckIsNoWorseThanTheNearestCuts) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> cost(0.0, 10.0), speed(0.1, 4.0);
  std::uniform_int_distribution<int> blocks(0, 200), parts(1, 12);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> costs(static_cast<std::size_t>(blocks(rng)));
    for (double& c : costs) c = cost(rng);
    std::vector<double> speeds(static_cast<std::size_t>(parts(rng)));
    for (double& s : speeds) s = speed(rng);
    // The nearest cuts, as a reference.
    std::vector<double> prefix(costs.size() + 1, 0.0);
    for (std::size_t b = 0; b < costs.size(); ++b) prefix[b + 1] = prefix[b] + costs[b];
    const double speed_sum = std::accumulate(speeds.begin(), speeds.end(), 0.0);
    std::vector<std::int64_t> nearest(speeds.size(), 0);
    double before = 0;
    std::size_t previous = 0;
    for (std::size_t r = 0; r + 1 < speeds.size(); ++r) {
      before += speeds[r];
      const double target = prefix.back() * (before / speed_sum);
      std::size_t cut = previous;
      while (cut < costs.size() && prefix[cut + 1] - target < target - prefix[cut]) ++cut;
      nearest[r] = static_cast<std::int64_t>(cut - previous);
      previous = cut;
    }
    nearest.back() = static_cast<std::int64_t>(costs.size() - previous);
    SCOPED_TRACE(trial);
    EXPECT_LE(split_time(costs, speeds, weighted_split(costs, speeds)),
              split_time(costs, speeds, nearest) * (1 + 1e-9));
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

TEST(SplitTime, IsTheSlowestPartsCostOverItsSpeed) {
  const std::vector<double> costs{1, 2, 3, 4, 5, 6};
  // Parts {1, 2, 3} at speed 2, {4, 5, 6} at speed 3: 6 / 2 = 3 and 15 / 3 = 5.
  EXPECT_DOUBLE_EQ(split_time(costs, std::vector<double>{2, 3}, std::vector<std::int64_t>{3, 3}),
                   5.0);
  // An empty part takes no time.
  EXPECT_DOUBLE_EQ(split_time(costs, std::vector<double>{1, 7}, std::vector<std::int64_t>{0, 6}),
                   3.0);
  EXPECT_THROW(split_time(costs, std::vector<double>{1, 1}, std::vector<std::int64_t>{3, 2}),
               std::invalid_argument);
  EXPECT_THROW(split_time(costs, std::vector<double>{1, 1}, std::vector<std::int64_t>{3, 4}),
               std::invalid_argument);
  EXPECT_THROW(split_time(costs, std::vector<double>{1}, std::vector<std::int64_t>{3, 3}),
               std::invalid_argument);
}

// A CostSplit as cost_balanced_split makes it, from gathered costs, speeds and counts.
CostSplit split_of(const std::vector<double>& costs, const std::vector<double>& speeds,
                   const std::vector<std::int64_t>& current) {
  CostSplit s;
  s.costs = costs;
  s.current = current;
  s.counts = weighted_split(costs, speeds);
  s.current_time = split_time(costs, speeds, current);
  s.balanced_time = split_time(costs, speeds, s.counts);
  return s;
}

TEST(CostSplit, MovesBlocksOnlyWhenTheGainPassesTheThreshold) {
  const std::vector<double> costs(12, 1.0);
  // Equal speeds, 6 + 6 blocks: balanced already, nothing to move at any threshold.
  const CostSplit even = split_of(costs, {1, 1}, {6, 6});
  EXPECT_EQ(even.counts, even.current);
  EXPECT_FALSE(even.worth_moving(0.0));
  // The second rank twice as fast: 4 + 8 takes 4 against 6 for 6 + 6, a third faster.
  const CostSplit uneven = split_of(costs, {1, 2}, {6, 6});
  EXPECT_EQ(uneven.counts, (std::vector<std::int64_t>{4, 8}));
  EXPECT_DOUBLE_EQ(uneven.current_time, 6.0);
  EXPECT_DOUBLE_EQ(uneven.balanced_time, 4.0);
  EXPECT_TRUE(uneven.worth_moving(0.05));
  EXPECT_TRUE(uneven.worth_moving(0.33));
  EXPECT_FALSE(uneven.worth_moving(0.34));
  // Speeds 1 and 1.1 measured (noise on equal ranks): the cut moves by one block for a
  // step 4.5 % faster: moved with a threshold of 0, not with the default 5 %.
  const CostSplit noisy = split_of(std::vector<double>(40, 1.0), {1, 1.1}, {20, 20});
  EXPECT_NE(noisy.counts, noisy.current);
  EXPECT_TRUE(noisy.worth_moving(0.0));
  EXPECT_FALSE(noisy.worth_moving(BalanceOptions{}.gain));
  // Nothing measured: no time, no move.
  CostSplit none;
  none.current = none.counts = {3, 3};
  EXPECT_FALSE(none.worth_moving(0.0));
}

}  // namespace
}  // namespace tessera
