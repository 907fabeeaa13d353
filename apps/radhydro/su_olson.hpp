#pragma once
// The Su-Olson non-equilibrium Marshak wave in the diffusion limit (Pomraning 1979; Su &
// Olson 1996, JQSRT 56, 337, their diffusion tables): the exact solution, evaluated by
// inverting its Laplace transform numerically.

#include <array>

namespace radhydro {

/// u = E_r / (a T_H^4) and v = (T / T_H)^4 at the dimensionless depth x and time tau of
///   eps du/dtau = d2u/dx2 + v - u,  dv/dtau = u - v,  u = v = 0 at tau = 0,
///   u - (2 / sqrt 3) du/dx = 1 at x = 0 (Marshak's incident flux),  x in [0, inf),
/// (x = sqrt 3 kappa rho z, tau = eps c kappa rho t, the heat capacity 4 a T^3 / eps per
/// volume). The transform u^(x, s) = exp(-g x) / (s (1 + 2 g / sqrt 3)), g = sqrt(s (eps +
/// 1 / (1 + s))), v^ = u^ / (1 + s), is inverted by the fixed Talbot contour (Abate &
/// Valko 2004) with 32 nodes: about 7 digits (the 16- and 64-node sums agree to 2e-6).
/// Needs tau > 0, x >= 0, eps > 0; pure, callable from any task.
std::array<double, 2> su_olson_marshak(double x, double tau, double eps);

}  // namespace radhydro
