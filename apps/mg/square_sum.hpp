#pragma once
// The exact sum of squares of many doubles, several times cheaper per value than adding each
// square to an ExactSum: a square's 53-bit significand is added to a 128-bit bucket of its
// binary exponent, and the buckets are folded into an ExactSum once per block. The result
// is the same exact sum, so rounding it once gives the same bits in any order.

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "tessera/comm/exact_sum.hpp"

namespace tessera::mg {

class SquareSum {
 public:
  /// Adds v[0]^2 + ... + v[n-1]^2 (each square rounded to a double, as r * r is).
  void add_squares(const double* v, int n) {
    // Even and odd cells go to separate buckets: consecutive squares mostly share an
    // exponent, and one bucket array would chain every add on the previous one's store.
    int i = 0;
    for (; i + 1 < n; i += 2) {
      add_square(buckets_, v[i]);
      add_square(odd_buckets_, v[i + 1]);
    }
    if (i < n) add_square(buckets_, v[i]);
  }

  /// Adds the exact sum so far to `sum` and clears this accumulator.
  void fold_into(ExactSum& sum) {
    for (int e = 1; e < kBuckets; ++e) {
      // Sums of at most 2^74 significands below 2^53: no overflow in 128 bits.
      unsigned __int128 b = buckets_[e] + odd_buckets_[e];
      if (b == 0) continue;
      buckets_[e] = 0;
      odd_buckets_[e] = 0;
      // 32-bit limbs times powers of two are exact doubles (or overflow to inf only when
      // the total itself exceeds the double range).
      for (int limb = 0; b != 0; ++limb, b >>= 32) {
        const auto digit = static_cast<double>(static_cast<std::uint32_t>(b));
        if (digit != 0.0) sum.add(std::ldexp(digit, 32 * limb + e - 1075));
      }
    }
    sum.add(specials_);
    specials_ = ExactSum{};
  }

 private:
  static constexpr int kBuckets = 2047;
  using Buckets = std::array<unsigned __int128, kBuckets>;

  void add_square(Buckets& buckets, double value) {
    const double square = value * value;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(square);
    const unsigned exponent = static_cast<unsigned>(bits >> 52);  // squares have no sign
    if (exponent == 0x7ff) {
      specials_.add(square);  // inf or NaN: ExactSum gives IEEE's answer
      return;
    }
    const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    // Normal: 1.f * 2^(e - 1023) = (2^52 + f) * 2^(e - 1075); subnormal (e = 0):
    // f * 2^(1 - 1075), the scale of e = 1.
    buckets[exponent == 0 ? 1 : exponent] +=
        exponent == 0 ? fraction : (fraction | (std::uint64_t{1} << 52));
  }

  Buckets buckets_{};
  Buckets odd_buckets_{};
  ExactSum specials_;
};

}  // namespace tessera::mg
