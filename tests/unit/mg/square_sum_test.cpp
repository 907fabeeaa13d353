// SquareSum gives exactly the ExactSum of the squares, for values of every magnitude.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "../../../apps/mg/square_sum.hpp"

namespace tessera::mg {
namespace {

std::uint64_t bits_of(double v) {
  return std::bit_cast<std::uint64_t>(v);
}

double reference(const std::vector<double>& v) {
  ExactSum sum;
  for (double x : v) sum.add(x * x);
  return sum.value();
}

double via_buckets(const std::vector<double>& v, int chunk) {
  auto squares = std::make_unique<SquareSum>();
  ExactSum sum;
  for (std::size_t i = 0; i < v.size(); i += chunk) {
    const int n = static_cast<int>(std::min<std::size_t>(chunk, v.size() - i));
    squares->add_squares(v.data() + i, n);
    if (i % (3 * chunk) == 0) squares->fold_into(sum);  // folding midway changes nothing
  }
  squares->fold_into(sum);
  return sum.value();
}

TEST(SquareSum, EqualsTheExactSumOfSquaresForEveryMagnitude) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-560, 500);
  std::vector<double> v;
  for (int i = 0; i < 20000; ++i) v.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  v.push_back(std::numeric_limits<double>::denorm_min());
  v.push_back(1e-160);  // square is subnormal
  v.push_back(-0.0);
  for (int chunk : {1, 7, 256}) EXPECT_EQ(bits_of(via_buckets(v, chunk)), bits_of(reference(v)));
  // Many equal values fill one bucket far beyond 64 bits' worth of significands... within
  // the test's time: 2^20 squares of the largest significand.
  std::vector<double> same(1 << 20, std::nextafter(2.0, 0.0));
  EXPECT_EQ(bits_of(via_buckets(same, 1024)), bits_of(reference(same)));
}

TEST(SquareSum, InfinitiesAndNaNGiveWhatExactSumGives) {
  const std::vector<double> huge{1e200, 2.0};
  EXPECT_TRUE(std::isinf(via_buckets(huge, 2)));
  const std::vector<double> nan{1.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_TRUE(std::isnan(via_buckets(nan, 2)));
}

}  // namespace
}  // namespace tessera::mg
