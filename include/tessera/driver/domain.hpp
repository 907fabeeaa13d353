#pragma once
// The physical box an adaptive mesh covers (layer `driver`): its corners, the level-0 cells
// and their size, and the centre of any level's cell.

#include <array>
#include <cmath>
#include <cstdint>

namespace tessera {

struct Domain {
  int dim = 3;
  std::array<int, 3> cells{1, 1, 1};  ///< level-0 cells per axis (1 on a flat z)
  std::array<double, 3> lo{}, hi{}, dx{};

  /// Centre of level-0 cell gi along axis a; mirror-image cells get exactly opposite
  /// offsets from the domain centre, so symmetric problems start symmetric bit for bit.
  double centre(int a, std::int64_t gi) const { return centre(a, gi, 0); }
  /// Centre of the level-L cell with global index gi (cells of level L are 2^-L as wide).
  double centre(int a, std::int64_t gi, int level) const {
    const double mid = 0.5 * (lo[a] + hi[a]);
    return mid + static_cast<double>(2 * gi + 1 - (static_cast<std::int64_t>(cells[a]) << level)) *
                     (0.5 * std::ldexp(dx[a], -level));
  }
  double cell_volume() const { return dx[0] * dx[1] * dx[2]; }
};

}  // namespace tessera
