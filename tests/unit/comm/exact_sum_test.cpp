// ExactSum gives the correctly rounded exact sum, independent of order and grouping.
#include "tessera/comm/exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace tessera {
namespace {

double exact_of(const std::vector<double>& xs) {
  ExactSum s;
  for (double x : xs) s.add(x);
  return s.value();
}

TEST(ExactSum, SimpleSumsAreExact) {
  EXPECT_EQ(exact_of({}), 0.0);
  EXPECT_EQ(exact_of({1.0, 2.0, 3.5}), 6.5);
  EXPECT_EQ(exact_of({-1.0, 1.0}), 0.0);
  EXPECT_EQ(exact_of({-2.5}), -2.5);
  EXPECT_EQ(exact_of({0.1}), 0.1);
}

TEST(ExactSum, CancellationThatNaiveSummationGetsWrong) {
  // Naive left-to-right summation returns 0 here; the exact sum is 1.
  EXPECT_EQ(exact_of({1e100, 1.0, -1e100}), 1.0);
  EXPECT_EQ(exact_of({1.0, 1e-300, -1.0}), 1e-300);
  EXPECT_EQ(exact_of({std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                      -std::numeric_limits<double>::max()}),
            std::numeric_limits<double>::max());
}

TEST(ExactSum, SubnormalsAndExtremes) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(exact_of({tiny, tiny, tiny}), 3 * tiny);
  EXPECT_EQ(exact_of({std::numeric_limits<double>::min(), -tiny}),
            std::numeric_limits<double>::min() - tiny);
  EXPECT_TRUE(std::isinf(
      exact_of({std::numeric_limits<double>::max(), std::numeric_limits<double>::max()})));
}

TEST(ExactSum, RoundsToNearestEvenOnce) {
  // 1 + 2^-53 is a tie between 1 and 1+2^-52: ties go to even (1).
  EXPECT_EQ(exact_of({1.0, std::ldexp(1.0, -53)}), 1.0);
  // A tiny extra amount breaks the tie upwards.
  EXPECT_EQ(exact_of({1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -200)}),
            1.0 + std::ldexp(1.0, -52));
  // 1 + 3*2^-53 lies between 1+2^-52 and 1+2^-51, tie, rounds to even (1+2^-51).
  EXPECT_EQ(exact_of({1.0, 3 * std::ldexp(1.0, -53)}), 1.0 + std::ldexp(1.0, -51));
}

TEST(ExactSum, SpecialValuesPropagate) {
  EXPECT_TRUE(std::isnan(exact_of({1.0, std::nan("")})));
  EXPECT_EQ(exact_of({1.0, INFINITY}), INFINITY);
  EXPECT_EQ(exact_of({-INFINITY, 2.0}), -INFINITY);
  EXPECT_TRUE(std::isnan(exact_of({INFINITY, -INFINITY})));
}

TEST(ExactSum, OrderAndGroupingDoNotChangeTheBits) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> expo(-60, 60);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> xs(2000);
    for (double& x : xs) x = std::ldexp(mant(rng), expo(rng));
    const double reference = exact_of(xs);
    std::shuffle(xs.begin(), xs.end(), rng);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(exact_of(xs)), std::bit_cast<std::uint64_t>(reference));
    // Split into uneven parts summed separately, as ranks or threads would.
    ExactSum total;
    std::size_t at = 0;
    while (at < xs.size()) {
      const std::size_t len = std::min<std::size_t>(xs.size() - at, 1 + rng() % 300);
      ExactSum part;
      for (std::size_t i = at; i < at + len; ++i) part.add(xs[i]);
      total.add(part);
      at += len;
    }
    EXPECT_EQ(std::bit_cast<std::uint64_t>(total.value()), std::bit_cast<std::uint64_t>(reference));
  }
}

TEST(ExactSum, MatchesLongDoubleOnWellConditionedData) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> xs(1000);
  for (double& x : xs) x = u(rng);
  // With 64-bit long double accumulation the error is far below half an ulp of the result.
  long double acc = 0;
  for (double x : xs) acc += x;
  EXPECT_EQ(exact_of(xs), static_cast<double>(acc));
}

}  // namespace
}  // namespace tessera
