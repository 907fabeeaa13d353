#pragma once
// Exact (error-free) summation of doubles: the result is the correctly rounded value of
// the exact mathematical sum, so it does not depend on the order of the additions, on
// how values are split over threads or ranks, or on the number of ranks. This is what
// makes tessera's checksums and norms bitwise reproducible.

#include <array>
#include <cstdint>

namespace tessera {

/// A fixed-point accumulator wide enough for every finite double (a Kulisch-style long
/// accumulator of 32-bit digits held in 64-bit limbs). Cheap to add to (a few integer
/// operations per value); ~600 bytes. Not thread-safe: use one per task or thread and
/// merge with add(const ExactSum&).
class ExactSum {
 public:
  static constexpr int kLimbs = 70;

  ExactSum() = default;
  /// Adds a finite value exactly. Infinities and NaN make the result NaN/inf as IEEE would.
  void add(double value);
  /// Adds another accumulator exactly.
  void add(const ExactSum& other);
  ExactSum& operator+=(double v) {
    add(v);
    return *this;
  }
  ExactSum& operator+=(const ExactSum& o) {
    add(o);
    return *this;
  }
  /// The exact sum rounded once to the nearest double (ties to even).
  double value() const;
  /// Propagates carries so every limb holds a digit in [0, 2^32) except the top one.
  void normalize();
  /// Raw limbs (for MPI transport); normalized layout after normalize().
  const std::array<std::int64_t, kLimbs>& limbs() const { return limbs_; }
  std::array<std::int64_t, kLimbs>& limbs() { return limbs_; }
  /// Non-finite inputs seen: bit 0 = +inf, bit 1 = -inf, bit 2 = NaN.
  std::uint32_t special() const { return special_; }
  void set_special(std::uint32_t s) { special_ = s; }

 private:
  std::array<std::int64_t, kLimbs> limbs_{};
  std::uint32_t special_ = 0;
  std::uint32_t pending_adds_ = 0;  // additions since the last normalize
};

}  // namespace tessera
