#include "tessera/comm/exact_sum.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace tessera {

namespace {
constexpr std::int64_t kDigitMask = (std::int64_t{1} << 32) - 1;
// Limbs absorb up to 2^31 additions of 32-bit digits before they could overflow.
constexpr std::uint32_t kAddsBeforeNormalize = 1u << 30;
}  // namespace

void ExactSum::add(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0x7ff) {
    const bool nan = (bits & ((std::uint64_t{1} << 52) - 1)) != 0;
    special_ |= nan ? 4u : ((bits >> 63) ? 2u : 1u);
    return;
  }
  std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
  if (mantissa == 0 && biased == 0) return;
  // value = mantissa * 2^(position - 1074); position 0 is the smallest subnormal bit.
  int position = 0;
  if (biased != 0) {
    mantissa |= std::uint64_t{1} << 52;
    position = biased - 1;
  }
  const int digit = position / 32;
  const unsigned __int128 shifted = static_cast<unsigned __int128>(mantissa) << (position % 32);
  const auto d0 = static_cast<std::int64_t>(shifted & kDigitMask);
  const auto d1 = static_cast<std::int64_t>((shifted >> 32) & kDigitMask);
  const auto d2 = static_cast<std::int64_t>(shifted >> 64);
  if (bits >> 63) {
    limbs_[digit] -= d0;
    limbs_[digit + 1] -= d1;
    limbs_[digit + 2] -= d2;
  } else {
    limbs_[digit] += d0;
    limbs_[digit + 1] += d1;
    limbs_[digit + 2] += d2;
  }
  if (++pending_adds_ >= kAddsBeforeNormalize) normalize();
}

void ExactSum::add(const ExactSum& other) {
  ExactSum rhs = other;
  rhs.normalize();
  normalize();
  for (int i = 0; i < kLimbs; ++i) limbs_[i] += rhs.limbs_[i];
  special_ |= rhs.special_;
  pending_adds_ = 1;
}

void ExactSum::normalize() {
  for (int i = 0; i + 1 < kLimbs; ++i) {
    const std::int64_t carry = limbs_[i] >> 32;  // arithmetic shift: floor division
    limbs_[i] -= carry * (std::int64_t{1} << 32);
    limbs_[i + 1] += carry;
  }
  pending_adds_ = 0;
}

double ExactSum::value() const {
  if (special_ & 4u || (special_ & 3u) == 3u) return std::numeric_limits<double>::quiet_NaN();
  if (special_ & 1u) return std::numeric_limits<double>::infinity();
  if (special_ & 2u) return -std::numeric_limits<double>::infinity();
  ExactSum n = *this;
  n.normalize();
  const bool negative = n.limbs_[kLimbs - 1] < 0;
  if (negative) {
    for (auto& l : n.limbs_) l = -l;
    n.normalize();
  }
  int top = kLimbs - 1;
  while (top >= 0 && n.limbs_[top] == 0) --top;
  if (top < 0) return 0.0;
  // Take up to three digits (96 bits) below and including the top one; everything
  // lower only matters as a sticky bit for rounding.
  const int base = top >= 2 ? top - 2 : 0;
  unsigned __int128 window = 0;
  for (int i = top; i >= base; --i) {
    window = (window << 32) | static_cast<std::uint64_t>(n.limbs_[i]);
  }
  bool sticky = false;
  for (int i = 0; i < base; ++i) sticky |= n.limbs_[i] != 0;
  int width = 0;
  for (unsigned __int128 w = window; w; w >>= 1) ++width;
  int shift = width > 53 ? width - 53 : 0;
  auto mantissa = static_cast<std::uint64_t>(window >> shift);
  if (shift > 0) {
    const unsigned __int128 rest = window & ((static_cast<unsigned __int128>(1) << shift) - 1);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
    const bool up = rest > half || (rest == half && (sticky || (mantissa & 1)));
    if (up && ++mantissa == (std::uint64_t{1} << 53)) {
      mantissa >>= 1;
      ++shift;
    }
  }
  const double magnitude = std::ldexp(static_cast<double>(mantissa), shift + 32 * base - 1074);
  return negative ? -magnitude : magnitude;
}

}  // namespace tessera
