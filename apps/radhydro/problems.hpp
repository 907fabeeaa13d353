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

/// Primitive state of one cell: density, velocity, pressure.
struct Primitive {
  double rho = 1;
  std::array<double, 3> v{};
  double p = 1;
};

/// One problem as set up for a run (problem name, dimension, axis, gas and length known).
/// Immutable after construction; callable from any task.
class Problem {
 public:
  /// `name` must be one of problem_names(); `axis` the shock tube's or wave's direction;
  /// `length` the domain's side.
  Problem(const std::string& name, int dim, int axis, hydro::IdealGas gas, double length);

  static const std::vector<std::string>& problem_names();
  /// The problem's end time when --t-end is not given.
  static double default_t_end(const std::string& name);
  /// The problem's boundary on face `face` (2 axis + side) when --boundary is "problem".
  static Boundary default_boundary(const std::string& name, int axis, int face);

  /// Initial state of the cell centred at x (its size dx, for sedov's hot spot).
  Primitive initial(const std::array<double, 3>& x, const std::array<double, 3>& dx) const;
  /// Whether reference() exists (the Riemann problems and the acoustic wave).
  bool has_reference() const { return riemann_.has_value() || name_ == "acoustic-wave"; }
  /// The exact (Riemann problems) or linear (acoustic wave) solution at x and time t.
  Primitive reference(const std::array<double, 3>& x, double t) const;
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
};

}  // namespace radhydro
