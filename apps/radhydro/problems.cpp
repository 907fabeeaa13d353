#include "problems.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace radhydro {
namespace {

// The acoustic wave's amplitude (HARD's acoustic-wave.yaml): small enough that the linear
// solution's error (amplitude^2) is below the scheme's at every tested resolution.
constexpr double kWaveAmplitude = 1e-5;
// sedov: HARD's deposited energy and background energy density (sedov.hh).
constexpr double kSedovEnergy = 0.0673185;
constexpr double kSedovBackground = 1e-5;
constexpr double kSedovRadius = 0.01;

}  // namespace

const std::vector<std::string>& Problem::problem_names() {
  static const std::vector<std::string> names{"sod", "rankine-hugoniot", "leblanc", "sedov",
                                              "acoustic-wave"};
  return names;
}

double Problem::default_t_end(const std::string& name) {
  if (name == "sedov") return 0.05;
  if (name == "acoustic-wave") return 1 / std::sqrt(1.4);  // one crossing at gamma 1.4
  return 0.2;
}

Boundary Problem::default_boundary(const std::string& name, int axis, int face) {
  if (name == "acoustic-wave") return Boundary::periodic;
  // HARD's rk.yaml: reflecting walls at the tube's ends (both sides start at rest).
  if (name == "rankine-hugoniot" && face / 2 == axis) return Boundary::reflecting;
  // sedov: the blast's octant, mirrored at the low faces.
  if (name == "sedov" && face % 2 == 0) return Boundary::reflecting;
  return Boundary::flow;
}

Problem::Problem(const std::string& name, int dim, int axis, hydro::IdealGas gas, double length)
    : name_(name), dim_(dim), axis_(axis), gas_(gas), length_(length) {
  if (name == "sod") {
    left_ = {1, {}, 1};
    right_ = {0.125, {}, 0.1};
  } else if (name == "rankine-hugoniot") {
    left_ = {1, {}, 1};
    right_ = {0.25, {}, 0.1795};
  } else if (name == "leblanc") {
    left_ = {1, {}, 0.1};
    right_ = {1e-3, {}, 1e-10};
  } else if (name != "sedov" && name != "acoustic-wave") {
    throw std::invalid_argument("unknown problem " + name);
  }
  if (name == "sod" || name == "rankine-hugoniot" || name == "leblanc") {
    riemann_.emplace(hydro::RiemannState{left_.rho, 0, left_.p},
                     hydro::RiemannState{right_.rho, 0, right_.p}, gas.gamma);
  }
}

Primitive Problem::initial(const std::array<double, 3>& x, const std::array<double, 3>& dx) const {
  if (riemann_) return x[axis_] < 0.5 * length_ ? left_ : right_;
  if (name_ == "acoustic-wave") return reference(x, 0);
  // sedov: the energy in the cells within max(0.01, 3 cells) of the origin, spread
  // over them evenly (HARD's 0.01 holds no cell centre at coarse resolutions).
  double r2 = 0, hot = 0;
  double radius = kSedovRadius;
  for (int a = 0; a < dim_; ++a) radius = std::fmax(radius, 3 * dx[a]);
  for (int a = 0; a < dim_; ++a) r2 += x[a] * x[a];
  if (r2 < radius * radius) {
    // The cells whose centres lie within the radius, counted on the cell grid.
    const int n = static_cast<int>(radius / dx[0]) + 1;
    double count = 0;
    for (int k = 0; k < (dim_ > 2 ? n : 1); ++k) {
      for (int j = 0; j < (dim_ > 1 ? n : 1); ++j) {
        for (int i = 0; i < n; ++i) {
          const double cx = (i + 0.5) * dx[0], cy = dim_ > 1 ? (j + 0.5) * dx[1] : 0,
                       cz = dim_ > 2 ? (k + 0.5) * dx[2] : 0;
          if (cx * cx + cy * cy + cz * cz < radius * radius) count += 1;
        }
      }
    }
    double volume = 1;
    for (int a = 0; a < dim_; ++a) volume *= dx[a];
    hot = kSedovEnergy / (count * volume);
  }
  return {1, {}, gas_.pressure(hot > 0 ? hot : kSedovBackground)};
}

Primitive Problem::reference(const std::array<double, 3>& x, double t) const {
  if (riemann_) {
    const double s = t > 0 ? (x[axis_] - 0.5 * length_) / t : (x[axis_] < 0.5 * length_ ? -1 : 1);
    const hydro::RiemannState r = riemann_->sample(s);
    Primitive p{r.rho, {}, r.p};
    p.v[axis_] = r.u;
    return p;
  }
  if (name_ == "acoustic-wave") {
    // The right-moving linear sound wave of a gas at rest with rho = p = 1.
    const double c0 = std::sqrt(gas_.gamma);
    const double phase = std::sin(2 * std::numbers::pi * (x[axis_] - c0 * t) / length_);
    Primitive p{1 + kWaveAmplitude * phase, {}, 1 + gas_.gamma * kWaveAmplitude * phase};
    p.v[axis_] = c0 * kWaveAmplitude * phase;
    return p;
  }
  throw std::logic_error("problem " + name_ + " has no reference solution");
}

}  // namespace radhydro
