#pragma once
// NPB's linear congruential generator (randlc: x <- 5^13 x mod 2^46, value x / 2^46) and
// the right-hand side of MG that it defines (zran3).

#include <cstdint>
#include <vector>

#include "tessera/mesh/box.hpp"

namespace tessera::mg {

/// The generator's multiplier 5^13 and MG's seed.
inline constexpr std::uint64_t kMultiplier = 1220703125;  // 5^13
inline constexpr std::uint64_t kSeed = 314159265;

/// a^n mod 2^46 (NPB's power(), by repeated squaring).
std::uint64_t power_mod46(std::uint64_t a, std::uint64_t n);
/// a x mod 2^46, exactly as randlc computes it in split double arithmetic.
inline std::uint64_t multiply_mod46(std::uint64_t a, std::uint64_t x) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * x) &
                                    ((std::uint64_t{1} << 46) - 1));
}
/// The double randlc returns for state x: x * 2^-46.
inline double to_unit(std::uint64_t x) {
  return static_cast<double>(x) * 0x1p-46;
}

/// A generated value at a global cell, identified by its linear index i + nx (j + nx k).
struct Candidate {
  double value = 0.0;
  std::int64_t index = -1;  ///< -1: no candidate
};

/// The ten largest and ten smallest values zran3 generates over some cells.
struct Extremes {
  static constexpr int kCount = 10;
  Candidate largest[kCount];
  Candidate smallest[kCount];
  /// Adds one value, keeping the lists sorted (largest first / smallest first); ties keep
  /// the lower index first, so the result is the same in any order of insertion.
  void offer(Candidate c);
  void merge(const Extremes& other);
};

/// zran3's values over the cells `box` (global coordinates) of an nx^3 grid: the value of
/// cell (i, j, k) is the (i + nx (j + nx k) + 1)-th number from the seed. Returns their
/// extremes.
Extremes generated_extremes(int nx, Box box);

}  // namespace tessera::mg
