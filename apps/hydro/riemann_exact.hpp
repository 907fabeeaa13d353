#pragma once
// The exact solution of the Riemann problem of the ideal-gas Euler equations (Toro,
// "Riemann Solvers and Numerical Methods for Fluid Dynamics", ch. 4): the reference the
// Riemann problems' L1 errors (euler's sod, radhydro's shock tubes) are measured against.

namespace hydro {

struct RiemannState {
  double rho = 1, u = 0, p = 1;
};

class ExactRiemann {
 public:
  /// Solves for the star region (Newton iteration on the pressure to 1e-14 relative).
  /// Throws std::runtime_error if the states generate vacuum.
  ExactRiemann(RiemannState left, RiemannState right, double gamma);
  /// The state at similarity coordinate s = (x - x0) / t.
  RiemannState sample(double s) const;
  double p_star() const { return p_star_; }
  double u_star() const { return u_star_; }

 private:
  double pressure_function(double p, const RiemannState& k, double c, double& derivative) const;
  RiemannState l_, r_;
  double gamma_, cl_, cr_, p_star_ = 0, u_star_ = 0;
};

}  // namespace hydro
