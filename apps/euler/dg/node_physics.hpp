#pragma once
// The Euler equations at one DG node: pressure, the physical flux along an axis, the
// largest signal speed, and the numerical fluxes of a face node (Rusanov, HLLC). States are
// conserved variables rho, rho v_x, rho v_y, rho v_z, E (euler::kVars of them).

#include <array>
#include <cmath>
#include <cstddef>

namespace euler::dg {

inline constexpr int kNodeVars = 5;
using State = std::array<double, kNodeVars>;

/// The numerical flux of a face node.
enum class FaceFlux { rusanov, hllc };

/// p = (gamma - 1) (E - |rho v|^2 / (2 rho)).
inline double pressure(const State& u, double gamma) {
  return (gamma - 1) * (u[4] - 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0]);
}

/// True if density and pressure are positive and finite.
inline bool admissible(const State& u, double gamma) {
  const double p = pressure(u, gamma);
  return u[0] > 0 && p > 0 && u[0] < 1e300 && p < 1e300;
}

/// The flux of u along `axis`: rho v_a, rho v_a v + p e_a, (E + p) v_a.
inline State physical_flux(const State& u, int axis, double gamma) {
  const double p = pressure(u, gamma);
  const double va = u[static_cast<std::size_t>(1 + axis)] / u[0];
  State f{u[0] * va, u[1] * va, u[2] * va, u[3] * va, (u[4] + p) * va};
  f[static_cast<std::size_t>(1 + axis)] += p;
  return f;
}

/// |v_a| + c: the largest signal speed along `axis`.
inline double signal_speed(const State& u, int axis, double gamma) {
  const double p = pressure(u, gamma);
  const double va = u[static_cast<std::size_t>(1 + axis)] / u[0];
  return (va < 0 ? -va : va) + std::sqrt(gamma * p / u[0]);
}

/// The dissipative part of the numerical flux through a face normal to `axis` between the
/// states left and right: flux(left, right) - (F(left) + F(right)) / 2. The scheme adds it
/// to the average of the predicted (time-averaged) physical fluxes, so that the central part
/// keeps the predictor's space-time accuracy. Needs admissible states. Pure.
State face_dissipation(const State& left, const State& right, int axis, double gamma,
                       FaceFlux kind);

}  // namespace euler::dg
