#pragma once
// The problems of the euler app: their domains, boundaries and initial states.
//
//   sod    Athena++'s athinput.sod along --axis: -0.5..0.5, interface at 0, rho 1 / 0.125,
//          p 1 / 0.1, outflow ends; the other axes are periodic, cells of the same size.
//   blast  Athena++'s athinput.blast on -0.5..0.5 in every direction, periodic: rho 1,
//          p = --blast-pressure, times --blast-pressure-ratio inside --blast-radius.
//   sedov  rho 1, p = --sedov-pressure, --sedov-energy deposited in the cells within two
//          cells of the centre; -0.5..0.5, outflow.
//   kh     Lecoanet et al. 2016 (2-D): x 0..1, y 0..2, periodic, shear layers at y = 0.5 and
//          1.5 (width 0.05), p 10, density jump --kh-density-contrast, a sinusoidal vy seed.
// --boundary replaces the problem's boundaries on every face (periodic, outflow, reflecting).

#include <array>
#include <cmath>
#include <cstdint>

#include "options.hpp"
#include "tessera/amr/halo.hpp"

namespace euler {

/// Conserved variables per cell, in this order.
inline constexpr int kRho = 0, kMomentum = 1, kEnergy = 4, kVars = 5;

/// The physical domain and the base-mesh cells.
struct Geometry {
  int dim = 2;
  std::array<int, 3> cells{1, 1, 1};  ///< level-0 cells per axis (1 on a flat z)
  std::array<double, 3> lo{}, hi{}, dx{};
  std::array<bool, 3> periodic{};
  std::array<tessera::BoundaryKind, 6> boundary{};

  /// Centre of level-0 cell gi along axis a; mirror-image cells get exactly opposite
  /// offsets from the domain centre, so symmetric problems start symmetric bit for bit.
  double centre(int a, std::int64_t gi) const {
    const double mid = 0.5 * (lo[a] + hi[a]);
    return mid + static_cast<double>(2 * gi + 1 - cells[a]) * (0.5 * dx[a]);
  }
  /// Centre of the level-L cell with global index gi (cells of level L are 2^-L as wide).
  double centre(int a, std::int64_t gi, int level) const {
    const double mid = 0.5 * (lo[a] + hi[a]);
    return mid + static_cast<double>(2 * gi + 1 - (static_cast<std::int64_t>(cells[a]) << level)) *
                     (0.5 * std::ldexp(dx[a], -level));
  }
  double cell_volume() const { return dx[0] * dx[1] * dx[2]; }
};

Geometry make_geometry(const Options& o);

/// Fills the conserved state u[kVars] of the level-`level` cell with global index g (at its
/// level). Sedov's energy goes to the cells inside the level-0 deposit cells.
void initial_state(const Options& o, const Geometry& geo, const std::array<std::int64_t, 3>& g,
                   double* u, int level = 0);

}  // namespace euler
