#pragma once
// The smooth problems of the DG scheme, each with its exact solution (translations of the
// initial state with a uniform velocity on a periodic domain):
//   density-wave       rho = 1 + 0.2 sin(2 pi (x + y [+ z] - dim t)), v = (1, 1[, 1]), p = 1,
//                      on [0, 1]^dim.
//   isentropic-vortex  Shu's vortex (2-D): strength 5, gamma 1.4, on [-5, 5]^2, ambient
//                      rho = p = 1 moving with v = (1, 1).
//   smooth-blobs       (3-D) rho = 1 + a sum of four Gaussian bumps (widths 0.06 to 0.12)
//                      moving with v = (1, 0.5, 0.25), p = 1, on [0, 1]^3: contacts only,
//                      steep enough that the refinement criterion follows them.
//   uniform            rho = 1, v = 0, p = 1 on [0, 1]^dim: a state at rest, which stays
//                      so with any boundaries (the walls' test).

#include <array>
#include <string_view>

#include "node_physics.hpp"

namespace euler::dg {

enum class SmoothProblem { density_wave, isentropic_vortex, smooth_blobs, uniform };

/// The problem's domain [lo, hi] per axis (axes >= dim are unused).
struct Box {
  std::array<double, 3> lo{}, hi{};
};
Box problem_box(SmoothProblem problem, int dim);

/// The ratio of specific heats the problem is defined with (1.4 for all).
inline constexpr double kSmoothGamma = 1.4;

/// The exact conserved state at position x (dim axes) and time t. Pure; callable
/// concurrently.
State exact_state(SmoothProblem problem, int dim, const std::array<double, 3>& x, double t);

}  // namespace euler::dg
