#include "problems.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "hydro/physical_constants.hpp"
#include "su_olson.hpp"

namespace radhydro {
namespace {

// The acoustic wave's amplitude (HARD's acoustic-wave.yaml): small enough that the linear
// solution's error (amplitude^2) is below the scheme's at every tested resolution.
constexpr double kWaveAmplitude = 1e-5;
// sedov: HARD's deposited energy and background energy density (sedov.hh).
constexpr double kSedovEnergy = 0.0673185;
constexpr double kSedovBackground = 1e-5;
constexpr double kSedovRadius = 0.01;
// heating-cooling (HARD's heating-cooling.yaml): uniform gas and radiation out of
// equilibrium.
constexpr double kHcDensity = 1e-11, kHcGasTemperature = 1000, kHcRadiationTemperature = 3000;
// gaussian-pulse: a pulse E_r = exp(-r^2 / (4 D t0)) in gas at rest at 1 K (sound speed
// 1.1e4 cm/s: the hydro time step stays well above the diffusion's scale), rho = 1,
// kappa 8e8 cm^2/g: D = c / (3 kappa rho) = 12.49 cm^2/s, t0 = 5e-5 s, the pulse's
// width doubling its variance by t_end = t0.
// On a background E_r of 1e-3 of the peak: E_r stays positive where the Crank-Nicolson
// diffusion undershoots in the tails (the exchange needs E_r >= 0).
constexpr double kPulseTemperature = 1, kPulseTime = 5e-5, kPulseBackground = 1e-3;
// rad-shock: Moens et al. 2022 (A&A 657, A81) sec. 4.2 as HARD's rad_rank_hugoniot.hh: the
// upstream and downstream states of a radiative shock, mass flux continuous.
constexpr double kShockRhoL = 1e-2, kShockUL = 1e9, kShockTL = 1e4;
constexpr double kShockRhoR = 6.85847e-2, kShockTR = 4.2285513562735e7;
// marshak: Su-Olson's eps, the medium (rho = 1 g/cm^3, kappa 1 cm^2/g by default) and its
// depth x in [0, 20] (zero flux at x = 20, where u < 1e-3 up to tau = 10); the medium
// starts at T_H / 100 in equilibrium (u = v = 1e-8: the problem is linear in u and v,
// so the reference is 1e-8 + (1 - 1e-8) times Su-Olson's from zero).
constexpr double kMarshakEpsilon = 0.1, kMarshakDepth = 20, kMarshakFloor = 1e-2;

double marshak_scale() {
  const double t2 = kMarshakTemperature * kMarshakTemperature;
  return hydro::kRadiationConstant * t2 * t2;
}

}  // namespace

const std::vector<std::string>& Problem::problem_names() {
  static const std::vector<std::string> names{
      "sod",           "rankine-hugoniot", "leblanc",        "sedov",
      "acoustic-wave", "heating-cooling",  "gaussian-pulse", "marshak",
      "rad-shock"};
  return names;
}

ProblemDefaults Problem::defaults(const std::string& name) {
  ProblemDefaults d;
  if (name == "sedov") d.t_end = 0.05;
  if (name == "acoustic-wave") d.t_end = 1 / std::sqrt(1.4);  // one crossing at gamma 1.4
  if (name == "heating-cooling") {
    d = {.t_end = 40, .length = 1e7, .radiation = true, .kappa = 1, .max_dt = 1};
  }
  if (name == "rad-shock") {
    d = {.t_end = 5e-3,
         .length = 1e5,
         .radiation = true,
         .kappa = 0.4,
         .max_dt = 5e-13,
         .exchange = true,
         .limiter = true,
         .mu = 0.5,
         .radiation_force = true};
  }
  if (name == "marshak") {
    // tau = 1 by default; dt at most tau 0.01 (the split exchange's first-order error).
    const double rate = kMarshakEpsilon * hydro::kSpeedOfLight;  // per tau at kappa rho = 1
    d = {.t_end = 1 / rate,
         .length = kMarshakDepth / std::numbers::sqrt3,
         .radiation = true,
         .kappa = 1,
         .max_dt = 0.01 / rate,
         .exchange = true,
         .limiter = false,
         .su_olson_epsilon = kMarshakEpsilon,
         .incident_er = marshak_scale()};
  }
  if (name == "gaussian-pulse") {
    d = {.t_end = kPulseTime,
         .length = 1,
         .radiation = true,
         .kappa = 8e8,
         .max_dt = 0,
         .exchange = false,
         .limiter = false};
  }
  return d;
}

Boundary Problem::default_boundary(const std::string& name, int axis, int face) {
  if (name == "acoustic-wave" || name == "heating-cooling") return Boundary::periodic;
  // HARD's rad-rh scaling configs: flow along the shock, periodic across.
  if (name == "rad-shock") return face / 2 == axis ? Boundary::flow : Boundary::periodic;
  // HARD's rk.yaml: reflecting walls at the tube's ends (both sides start at rest).
  if (name == "rankine-hugoniot" && face / 2 == axis) return Boundary::reflecting;
  // sedov: the blast's octant, mirrored at the low faces.
  if (name == "sedov" && face % 2 == 0) return Boundary::reflecting;
  return Boundary::flow;
}

Problem::Problem(const std::string& name, int dim, int axis, hydro::IdealGas gas, double length,
                 double kappa)
    : name_(name), dim_(dim), axis_(axis), gas_(gas), length_(length), kappa_(kappa) {
  if (name == "sod") {
    left_ = {1, {}, 1};
    right_ = {0.125, {}, 0.1};
  } else if (name == "rankine-hugoniot") {
    left_ = {1, {}, 1};
    right_ = {0.25, {}, 0.1795};
  } else if (name == "leblanc") {
    left_ = {1, {}, 0.1};
    right_ = {1e-3, {}, 1e-10};
  } else if (name == "rad-shock") {
    const auto state = [&](double rho, double u, double t) {
      Primitive w{rho, {}, gas.pressure(rho * gas.specific_energy(t))};
      w.v[axis] = u;
      const double t2 = t * t;
      w.er = hydro::kRadiationConstant * t2 * t2;
      return w;
    };
    left_ = state(kShockRhoL, kShockUL, kShockTL);
    right_ = state(kShockRhoR, kShockRhoL * kShockUL / kShockRhoR, kShockTR);
  } else if (name != "sedov" && name != "acoustic-wave" && name != "heating-cooling" &&
             name != "gaussian-pulse" && name != "marshak") {
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
  if (name_ == "rad-shock") return x[axis_] < 0.5 * length_ ? left_ : right_;
  if (name_ == "heating-cooling") {
    const double p = gas_.pressure(kHcDensity * gas_.specific_energy(kHcGasTemperature));
    const double t2 = kHcRadiationTemperature * kHcRadiationTemperature;
    return {kHcDensity, {}, p, hydro::kRadiationConstant * t2 * t2};
  }
  if (name_ == "marshak") {
    // The gas energy a T^4 / eps per volume (Su-Olson's heat capacity), at rest.
    const double er =
        kMarshakFloor * kMarshakFloor * kMarshakFloor * kMarshakFloor * marshak_scale();
    return {1, {}, (gas_.gamma - 1) * er / kMarshakEpsilon, er};
  }
  if (name_ == "gaussian-pulse") {
    const double p = gas_.pressure(gas_.specific_energy(kPulseTemperature));
    return {1, {}, p, radiation_reference(x, 0)[1]};
  }
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

double marshak_tau(double t, double kappa) {
  return kMarshakEpsilon * hydro::kSpeedOfLight * kappa * t;  // rho = 1
}

std::array<std::array<double, 4>, 2> Problem::jump_reference() const {
  // Moens et al.'s temperatures as given (not round-tripped through the EOS).
  return {std::array<double, 4>{left_.rho, left_.v[axis_], kShockTL, left_.er},
          std::array<double, 4>{right_.rho, right_.v[axis_], kShockTR, right_.er}};
}

void Problem::prepare(double t) {
  if (name_ != "heating-cooling") return;
  // d(rho e)/dt = -c kappa rho (a T^4 - E), dE/dt = -d(rho e)/dt, T = rho e / C_v.
  const double rate = hydro::kSpeedOfLight * kappa_ * kHcDensity;
  const double cv = gas_.heat_capacity(kHcDensity);
  const auto source = [&](double eint, double e) {
    const double temp = eint / cv;
    return rate * (e - hydro::kRadiationConstant * temp * temp * temp * temp);
  };
  double eint = cv * kHcGasTemperature;
  const double t2 = kHcRadiationTemperature * kHcRadiationTemperature;
  double e = hydro::kRadiationConstant * t2 * t2;
  constexpr int kSteps = 100000;
  const double h = t / kSteps;
  for (int n = 0; n < kSteps; ++n) {
    const double k1 = source(eint, e);
    const double k2 = source(eint + 0.5 * h * k1, e - 0.5 * h * k1);
    const double k3 = source(eint + 0.5 * h * k2, e - 0.5 * h * k2);
    const double k4 = source(eint + h * k3, e - h * k3);
    const double d = h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    eint += d;
    e -= d;
  }
  ode_at_t_ = {eint / cv, e};
}

std::array<double, 2> Problem::radiation_reference(const std::array<double, 3>& x, double t) const {
  if (name_ == "heating-cooling") return ode_at_t_;
  if (name_ == "marshak") {
    constexpr double floor4 = kMarshakFloor * kMarshakFloor * kMarshakFloor * kMarshakFloor;
    const double depth = std::numbers::sqrt3 * kappa_ * x[axis_];
    const auto uv = t > 0 ? su_olson_marshak(depth, marshak_tau(t, kappa_), kMarshakEpsilon)
                          : std::array<double, 2>{0, 0};
    const double u = floor4 + (1 - floor4) * uv[0], v = floor4 + (1 - floor4) * uv[1];
    return {kMarshakTemperature * std::sqrt(std::sqrt(v)), u * marshak_scale()};
  }
  // The heat kernel of D = c / (3 kappa rho) in dim_ dimensions around the domain's centre.
  const double d = hydro::kSpeedOfLight / (3 * kappa_);
  double r2 = 0;
  for (int a = 0; a < dim_; ++a) r2 += (x[a] - 0.5 * length_) * (x[a] - 0.5 * length_);
  const double spread = kPulseTime / (kPulseTime + t);
  return {kPulseTemperature, kPulseBackground + std::pow(spread, 0.5 * dim_) *
                                                    std::exp(-r2 / (4 * d * (kPulseTime + t)))};
}

}  // namespace radhydro
