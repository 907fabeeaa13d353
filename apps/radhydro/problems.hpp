#pragma once
// The problems of the radhydro app: initial states, default boundaries and end times, and
// the reference solutions the report's L1 errors are measured against.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "hydro/ideal_gas.hpp"
#include "hydro/riemann_exact.hpp"

namespace radhydro {

/// What a domain face does with its ghost cells.
enum class Boundary { flow, reflecting, periodic };

/// Primitive state of one cell: density, velocity, pressure, radiation energy density.
struct Primitive {
  double rho = 1;
  std::array<double, 3> v{};
  double p = 1;
  double er = 0;
};

/// What a problem sets when the options leave it to the problem.
struct ProblemDefaults {
  double t_end = 0.2;
  double length = 1;  ///< the domain's side (cm for the radiation problems)
  bool radiation = false;
  double kappa = 0.4;  ///< cm^2/g
  double max_dt = 0;   ///< 0: none
  bool exchange = true;
  bool limiter = true;
  double mu = 1;  ///< mean molecular weight
  bool radiation_force = false;
  /// Su-Olson's eps = 4 a T^3 / c_v (c_v per volume, proportional to T^3: the gas energy
  /// per volume a T^4 / eps); 0: the ideal gas's constant c_v (marshak: 0.1).
  double su_olson_epsilon = 0;
  /// E_r of the radiation incident on the axis's low domain face (Marshak's condition
  /// E_r - (2 / (3 kappa rho)) dE_r/dx = incident there); 0: none (marshak: a T_H^4).
  double incident_er = 0;
};

/// marshak's heating temperature T_H (K) and its dimensionless depth x = sqrt 3 kappa rho z
/// and time tau = eps c kappa rho t (rho = 1 g/cm^3).
inline constexpr double kMarshakTemperature = 1e5;
double marshak_tau(double t, double kappa);

/// One problem as set up for a run (problem name, dimension, axis, gas and length known).
/// Immutable after construction; callable from any task.
class Problem {
 public:
  /// `name` must be one of problem_names(); `axis` the shock tube's or wave's direction;
  /// `length` the domain's side; `kappa` the opacity (cm^2/g).
  Problem(const std::string& name, int dim, int axis, hydro::IdealGas gas, double length,
          double kappa);

  static const std::vector<std::string>& problem_names();
  /// The problem's settings where the options leave them open.
  static ProblemDefaults defaults(const std::string& name);
  /// The problem's boundary on face `face` (2 axis + side) when --boundary is "problem".
  static Boundary default_boundary(const std::string& name, int axis, int face);

  /// Initial state of the cell centred at x (its size dx, for sedov's hot spot).
  Primitive initial(const std::array<double, 3>& x, const std::array<double, 3>& dx) const;
  /// Whether reference() exists (the Riemann problems and the acoustic wave).
  bool has_reference() const { return riemann_.has_value() || name_ == "acoustic-wave"; }
  /// The exact (Riemann problems) or linear (acoustic wave) solution at x and time t.
  Primitive reference(const std::array<double, 3>& x, double t) const;

  /// Whether radiation_reference() exists (heating-cooling, gaussian-pulse).
  bool has_radiation_reference() const {
    return name_ == "heating-cooling" || name_ == "gaussian-pulse" || name_ == "marshak";
  }
  /// Gas temperature and E_r of the reference at x and time t: heating-cooling's ODE
  /// solution (RK4 in 10^5 steps; computed once per t and cached: call prepare(t) first
  /// from one thread), gaussian-pulse's heat kernel or marshak's Su-Olson solution.
  void prepare(double t);
  std::array<double, 2> radiation_reference(const std::array<double, 3>& x, double t) const;
  /// Whether jump_reference() exists (rad-shock).
  bool has_jump_reference() const { return name_ == "rad-shock"; }
  /// rad-shock's upstream [0] and downstream [1] states as {rho, u along the axis, T, E_r}
  /// (Moens et al. 2022 sec. 4.2: the Rankine-Hugoniot states of the radiative shock).
  std::array<std::array<double, 4>, 2> jump_reference() const;
  const std::string& name() const { return name_; }
  int axis() const { return axis_; }

 private:
  std::string name_;
  int dim_;
  int axis_;
  hydro::IdealGas gas_;
  double length_;
  Primitive left_, right_;
  std::optional<hydro::ExactRiemann> riemann_;
  double kappa_ = 0;
  std::array<double, 2> ode_at_t_{};
};

}  // namespace radhydro
