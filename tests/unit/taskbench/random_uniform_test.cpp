// Task Bench's hash-based random numbers: SipHash-2-4 itself, and the graphs and FLOP
// counts that depend on it, checked against values printed by Task Bench.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "../../../apps/taskbench/random_uniform.hpp"
#include "../../../apps/taskbench/summary.hpp"

namespace tessera::taskbench {
namespace {

std::uint64_t siphash_of_counting_bytes(int n) {
  std::array<std::uint8_t, 16> key{};
  for (int i = 0; i < 16; ++i) key[i] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> message(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) message[i] = static_cast<std::uint8_t>(i);
  return siphash24(message, key);
}

TEST(SipHash, MatchesThePublishedTestVectors) {
  // Key 00..0f, message 00..(n-1): vectors of the SipHash reference implementation.
  EXPECT_EQ(siphash_of_counting_bytes(0), 0x726fdb47dd0e0e31ULL);
  EXPECT_EQ(siphash_of_counting_bytes(8), 0x93f5f5799a932462ULL);
  EXPECT_EQ(siphash_of_counting_bytes(15), 0xa129ca6149be45e5ULL);
}

TEST(RandomUniform, StaysInUnitIntervalAndDependsOnEveryWord) {
  const std::array<std::int64_t, 3> a = {0, 1, 2}, b = {0, 1, 3}, c = {1, 1, 2};
  for (const auto& words : {a, b, c}) {
    const double u = random_uniform(words);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
  EXPECT_NE(random_uniform(a), random_uniform(b));
  EXPECT_NE(random_uniform(a), random_uniform(c));
}

// Task Bench -steps 5 -width 8 -type random_nearest -radix 3 -period 2 -fraction 0.5 -v
// printed these dependency lists for timesteps 2 (set 0) and 1 (set 1).
TEST(RandomNearest, DrawsTheSameEdgesAsTaskBench) {
  TaskGraph g{.timesteps = 5,
              .max_width = 8,
              .type = DependenceType::random_nearest,
              .radix = 3,
              .period = 2,
              .fraction = 0.5};
  const DependencyTable table(g);
  const std::vector<std::vector<long>> set0 = {{0}, {0, 1, 2}, {2}, {3}, {3, 4}, {5}, {6}, {7}};
  const std::vector<std::vector<long>> set1 = {{0, 1}, {1},    {2},    {2, 3, 4},
                                               {4, 5}, {5, 6}, {5, 6}, {7}};
  for (long x = 0; x < 8; ++x) {
    auto p0 = table.producers(0, x), p1 = table.producers(1, x);
    EXPECT_EQ(std::vector<long>(p0.begin(), p0.end()), set0[x]) << "point " << x;
    EXPECT_EQ(std::vector<long>(p1.begin(), p1.end()), set1[x]) << "point " << x;
  }
  const RunConfig c{.graph = g};
  EXPECT_EQ(count_totals(c).dependencies, 50);
}

// Task Bench -steps 10 -width 4 -type stencil_1d -kernel load_imbalance -iter 1000
// -imbalance 1.0 printed "Total FLOPs 5095808".
TEST(LoadImbalance, CountsTheSameFlopsAsTaskBench) {
  RunConfig c{.graph = {.timesteps = 10, .max_width = 4, .type = DependenceType::stencil_1d},
              .kernel = {.type = KernelType::load_imbalance, .iterations = 1000, .imbalance = 1.0}};
  EXPECT_EQ(count_totals(c).flops, 5095808);
}

}  // namespace
}  // namespace tessera::taskbench
