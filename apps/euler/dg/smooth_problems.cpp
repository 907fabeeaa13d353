#include "smooth_problems.hpp"

#include <cmath>
#include <numbers>

namespace euler::dg {

namespace {

/// x - shift brought into [lo, lo + length) by whole periods.
double wrap(double x, double lo, double length) {
  const double r = std::fmod(x - lo, length);
  return lo + (r < 0 ? r + length : r);
}

State from_primitive(double rho, const std::array<double, 3>& v, double p, double gamma) {
  const double kinetic = 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return {rho, rho * v[0], rho * v[1], rho * v[2], p / (gamma - 1) + kinetic};
}

struct Blob {
  std::array<double, 3> centre;
  double amplitude, width;
};
constexpr std::array<Blob, 4> kBlobs{{{{0.3, 0.3, 0.3}, 0.5, 0.10},
                                      {{0.7, 0.4, 0.6}, 0.4, 0.08},
                                      {{0.45, 0.75, 0.35}, 0.3, 0.12},
                                      {{0.6, 0.6, 0.8}, 0.6, 0.06}}};

}  // namespace

Box problem_box(SmoothProblem problem, int dim) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    const auto ua = static_cast<std::size_t>(a);
    const bool vortex = problem == SmoothProblem::isentropic_vortex && a < dim;
    b.lo[ua] = vortex ? -5 : 0;
    b.hi[ua] = vortex ? 5 : 1;
  }
  return b;
}

State exact_state(SmoothProblem problem, int dim, const std::array<double, 3>& x, double t) {
  const double gamma = kSmoothGamma;
  const double two_pi = 2 * std::numbers::pi;
  switch (problem) {
    case SmoothProblem::density_wave: {
      double phase = -dim * t;
      std::array<double, 3> v{};
      for (int a = 0; a < dim; ++a) {
        phase += x[static_cast<std::size_t>(a)];
        v[static_cast<std::size_t>(a)] = 1;
      }
      return from_primitive(1 + 0.2 * std::sin(two_pi * phase), v, 1, gamma);
    }
    case SmoothProblem::isentropic_vortex: {
      const double strength = 5;
      const double xr = wrap(x[0] - t, -5, 10), yr = wrap(x[1] - t, -5, 10);
      const double r2 = xr * xr + yr * yr;
      const double du = strength / two_pi * std::exp(0.5 * (1 - r2));
      const double dtemp = -(gamma - 1) * strength * strength /
                           (8 * gamma * std::numbers::pi * std::numbers::pi) * std::exp(1 - r2);
      const double temp = 1 + dtemp;
      const double rho = std::pow(temp, 1 / (gamma - 1));
      return from_primitive(rho, {1 - du * yr, 1 + du * xr, 0}, rho * temp, gamma);
    }
    case SmoothProblem::smooth_blobs: {
      std::array<double, 3> v{1, 0.5, 0.25};
      for (int a = dim; a < 3; ++a) v[static_cast<std::size_t>(a)] = 0;
      double rho = 1;
      for (const Blob& b : kBlobs) {
        double r2 = 0;
        for (int a = 0; a < dim; ++a) {
          const auto ua = static_cast<std::size_t>(a);
          // The nearest periodic image of the blob's centre.
          const double d = wrap(x[ua] - v[ua] * t - b.centre[ua] + 0.5, 0, 1) - 0.5;
          r2 += d * d;
        }
        rho += b.amplitude * std::exp(-r2 / (b.width * b.width));
      }
      return from_primitive(rho, v, 1, gamma);
    }
    case SmoothProblem::uniform:
      return from_primitive(1, {0, 0, 0}, 1, gamma);
  }
  return {};
}

}  // namespace euler::dg
