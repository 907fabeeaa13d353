#include "problems.hpp"

#include <cmath>
#include <numbers>

#include "tessera/comm/exact_sum.hpp"
#include "tessera/driver/cell_walk.hpp"

namespace euler {

namespace {

// Sedov: cells whose centre lies within this many cells of the domain centre get the energy.
constexpr double kSedovCells = 2.0;

bool in_sedov_region(const Geometry& geo, const std::array<std::int64_t, 3>& g) {
  double r2 = 0;
  for (int a = 0; a < geo.dim; ++a) {
    const double c = static_cast<double>(2 * g[a] + 1 - geo.cells[a]) * 0.5;  // in cells
    r2 += c * c;
  }
  return r2 < kSedovCells * kSedovCells;
}

// Number of cells in the Sedov deposit region (they sit within 2 cells of the centre).
std::int64_t sedov_region_cells(const Geometry& geo) {
  std::int64_t count = 0;
  std::array<std::int64_t, 3> lo{}, hi{};
  for (int a = 0; a < 3; ++a) {
    const std::int64_t mid = geo.cells[a] / 2;
    lo[a] = a < geo.dim ? std::max<std::int64_t>(0, mid - 4) : 0;
    hi[a] = a < geo.dim ? std::min<std::int64_t>(geo.cells[a], mid + 4) : 1;
  }
  for (std::int64_t i = lo[0]; i < hi[0]; ++i)
    for (std::int64_t j = lo[1]; j < hi[1]; ++j)
      for (std::int64_t k = lo[2]; k < hi[2]; ++k) count += in_sedov_region(geo, {i, j, k});
  return count;
}

void set_primitive(double gamma, double rho, const std::array<double, 3>& v, double p, double* u) {
  u[kRho] = rho;
  double kinetic = 0;
  for (int a = 0; a < 3; ++a) {
    u[kMomentum + a] = rho * v[static_cast<std::size_t>(a)];
    kinetic += u[kMomentum + a] * v[static_cast<std::size_t>(a)];
  }
  u[kEnergy] = p / (gamma - 1) + 0.5 * kinetic;
}

}  // namespace

Geometry make_geometry(const Options& o) {
  Geometry geo;
  geo.dim = o.dim;
  geo.cells = o.cells;
  geo.lo = {-0.5, -0.5, -0.5};
  geo.hi = {0.5, 0.5, 0.5};
  geo.periodic = {true, true, true};
  if (o.problem == Problem::sod) {  // cells of the tube's size across it
    for (int a = 0; a < o.dim; ++a)
      if (a != o.axis) geo.lo[a] = -(geo.hi[a] = 0.5 * (1.0 / o.cells[o.axis]) * o.cells[a]);
    geo.periodic[o.axis] = false;
  } else if (o.problem == Problem::sedov) {
    for (int a = 0; a < o.dim; ++a) geo.periodic[a] = false;
  } else if (o.problem == Problem::kh) {
    geo.lo = {0, 0, -0.5};
    geo.hi = {1, 2, 0.5};
  } else if (o.problem == Problem::density_wave) {
    for (int a = 0; a < o.dim; ++a) geo.lo[a] = 0, geo.hi[a] = 1;
  }
  for (int a = 0; a < 3; ++a) geo.dx[a] = (geo.hi[a] - geo.lo[a]) / geo.cells[a];
  const bool reflecting = o.boundary_name == "reflecting";
  geo.boundary.fill(reflecting ? tessera::BoundaryKind::reflecting
                               : tessera::BoundaryKind::outflow);
  if (o.boundary_name != "problem") geo.periodic.fill(o.boundary_name == "periodic");
  return geo;
}

void initial_state(const Options& o, const Geometry& geo, const std::array<std::int64_t, 3>& g,
                   double* u, int level) {
  std::array<double, 3> x{};
  for (int a = 0; a < 3; ++a) x[a] = a < geo.dim ? geo.centre(a, g[a], level) : geo.centre(a, g[a]);
  const double gamma = o.gamma;
  switch (o.problem) {
    case Problem::sod: {
      const bool left = x[static_cast<std::size_t>(o.axis)] < 0;
      set_primitive(gamma, left ? 1.0 : 0.125, {0, 0, 0}, left ? 1.0 : 0.1, u);
      break;
    }
    case Problem::blast: {
      double r2 = 0;
      for (int a = 0; a < o.dim; ++a) r2 += x[a] * x[a];
      const double p = std::sqrt(r2) < o.blast_radius ? o.blast_pressure * o.blast_pressure_ratio
                                                      : o.blast_pressure;
      set_primitive(gamma, 1.0, {0, 0, 0}, p, u);
      break;
    }
    case Problem::sedov: {
      double p = o.sedov_pressure;
      std::array<std::int64_t, 3> g0 = g;
      for (int a = 0; a < geo.dim; ++a) g0[static_cast<std::size_t>(a)] >>= level;
      if (in_sedov_region(geo, g0)) {
        const double volume = static_cast<double>(sedov_region_cells(geo)) * geo.cell_volume();
        p = (gamma - 1) * o.sedov_energy / volume;
      }
      set_primitive(gamma, 1.0, {0, 0, 0}, p, u);
      break;
    }
    case Problem::kh: {
      // Lecoanet et al. 2016, section 2: shear layers at y1 = 0.5 and y2 = 1.5.
      constexpr double a = 0.05, sigma = 0.2, amplitude = 0.01, p0 = 10, y1 = 0.5, y2 = 1.5;
      const double profile = std::tanh((x[1] - y1) / a) - std::tanh((x[1] - y2) / a);
      const double vx = profile - 1;
      const double vy = amplitude * std::sin(2 * std::numbers::pi * x[0]) *
                        (std::exp(-(x[1] - y1) * (x[1] - y1) / (sigma * sigma)) +
                         std::exp(-(x[1] - y2) * (x[1] - y2) / (sigma * sigma)));
      const double rho = 1 + o.kh_density_contrast * 0.5 * profile;
      set_primitive(gamma, rho, {vx, vy, 0}, p0, u);
      break;
    }
    case Problem::density_wave: {
      const double rho = density_wave_mean(geo, g, level, 0);
      std::array<double, 3> v{};
      for (int a = 0; a < o.dim; ++a) v[static_cast<std::size_t>(a)] = 1;
      // rho v and E are linear in rho (v and p uniform): the cell means of the exact state.
      set_primitive(gamma, rho, v, 1, u);
      break;
    }
  }
}

double density_wave_mean(const Geometry& geo, const std::array<std::int64_t, 3>& g, int level,
                         double t) {
  // The mean of sin(2 pi (sum x_a - dim t)) over the cell: its value at the centre times
  // sin(pi h_a) / (pi h_a) per axis.
  const double pi = std::numbers::pi;
  double phase = -geo.dim * t, factor = 1;
  for (int a = 0; a < geo.dim; ++a) {
    const double h = std::ldexp(geo.dx[a], -level);
    phase += geo.centre(a, g[static_cast<std::size_t>(a)], level);
    factor *= std::sin(pi * h) / (pi * h);
  }
  return 1 + 0.2 * factor * std::sin(2 * pi * phase);
}

std::vector<double> volume_sums(tessera::Session& session, tessera::AmrMesh& mesh, int dim,
                                std::size_t count, const CellValues& values) {
  std::vector<tessera::ExactSum> sums(count);
  tessera::for_each_cell(
      mesh, 0,
      [&](int level, const std::array<std::int64_t, 3>& g, const double* u, std::size_t sv) {
        values(level, g, u, sv, [&](std::size_t i, double v) {
          sums[i].add(std::ldexp(v, -dim * level));  // a level-L cell: 2^-(dim L) level-0 cells
        });
      });
  const tessera::Handle h = session.runtime().create_handle("euler.volume_sums");
  for (tessera::ExactSum& sum : sums) session.comm().iallreduce_sum(h, &sum);
  session.runtime().wait_for(h);
  std::vector<double> result;
  for (const tessera::ExactSum& sum : sums) result.push_back(sum.value());
  return result;
}

}  // namespace euler
