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
//   density-wave  on [0, 1]^dim, periodic: rho = 1 + 0.2 sin(2 pi (x + y [+ z] - dim t)),
//          v = 1 per axis, p 1, gamma 1.4: an exact translation (cells start from its means;
//          the report's l1_rho / l2_rho measure against them), the accuracy benchmark's.
// --boundary replaces the problem's boundaries on every face (periodic, outflow, reflecting).

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "options.hpp"
#include "tessera/amr/halo.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/driver/domain.hpp"
#include "tessera/session.hpp"

namespace euler {

/// Conserved variables per cell, in this order.
inline constexpr int kRho = 0, kMomentum = 1, kEnergy = 4, kVars = 5;

/// The pressure of the cell whose conserved variables are u[0], u[sv], ..., u[4 sv].
inline double pressure(const double* u, std::size_t sv, double gamma) {
  const double mx = u[sv], my = u[2 * sv], mz = u[3 * sv];
  return (gamma - 1) * (u[4 * sv] - 0.5 * (mx * mx + my * my + mz * mz) / u[0]);
}

/// The physical domain, the base-mesh cells and the boundaries.
struct Geometry : tessera::Domain {
  std::array<bool, 3> periodic{};
  std::array<tessera::BoundaryKind, 6> boundary{};
};

Geometry make_geometry(const Options& o);

/// Fills the conserved state u[kVars] of the level-`level` cell with global index g (at its
/// level). Sedov's energy goes to the cells inside the level-0 deposit cells.
void initial_state(const Options& o, const Geometry& geo, const std::array<std::int64_t, 3>& g,
                   double* u, int level = 0);

/// density-wave: the exact mean density of the level-`level` cell g at time t.
double density_wave_mean(const Geometry& geo, const std::array<std::int64_t, 3>& g, int level,
                         double t);
/// Collective, every task done: exact sums over the leaf cells of the values a cell's
/// `values(level, g, u, sv, add)` passes to add(index < count, value), each weighed by the
/// cell's volume in level-0 cells: the same bits on any ranks and threads.
using CellValues =
    std::function<void(int level, const std::array<std::int64_t, 3>& g, const double* u,
                       std::size_t sv, const std::function<void(std::size_t, double)>& add)>;
std::vector<double> volume_sums(tessera::Session& session, tessera::AmrMesh& mesh, int dim,
                                std::size_t count, const CellValues& values);

}  // namespace euler
