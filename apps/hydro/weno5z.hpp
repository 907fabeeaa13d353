#pragma once
// WENO5-Z reconstruction in point-interpolation form (HARD's spec/limiter.hh scheme):
// the value at a cell face from the five values centred on the cell, treated as point
// values. Candidate stencils (3/8, -5/4, 15/8), (-1/8, 3/4, 3/8), (3/8, 3/4, -1/8),
// linear weights 1/16, 10/16, 5/16 (together fifth-order interpolation), Jiang-Shu
// smoothness indicators beta_k, and the Borges et al. (2008) weights
//   alpha_k = d_k (1 + (tau5 / (beta_k + eps_k))^2),  tau5 = |beta_2 - beta_0|,
// with eps_k = 1e-15 (1 + sum of |v| over stencil k) so that constant data gives the
// linear weights without dividing by zero.

#include <cmath>

namespace hydro {

/// The value at the face between v2 and v3 (the right face of the centre cell v2) from
/// v0..v4 = v[i-2..i+2]. The left face of cell i is weno5z_face(v4, v3, v2, v1, v0). Pure:
/// callable from any task, concurrently.
[[gnu::always_inline]] inline double weno5z_face(double v0, double v1, double v2, double v3,
                                                 double v4) {
  const double p0 = 0.375 * v0 - 1.25 * v1 + 1.875 * v2;
  const double p1 = -0.125 * v1 + 0.75 * v2 + 0.375 * v3;
  const double p2 = 0.375 * v2 + 0.75 * v3 - 0.125 * v4;
  constexpr double k13_12 = 13.0 / 12.0;
  const double a0 = v0 - 2 * v1 + v2, b0 = v0 - 4 * v1 + 3 * v2;
  const double a1 = v1 - 2 * v2 + v3, b1 = v1 - v3;
  const double a2 = v2 - 2 * v3 + v4, b2 = 3 * v2 - 4 * v3 + v4;
  const double beta0 = k13_12 * a0 * a0 + 0.25 * b0 * b0;
  const double beta1 = k13_12 * a1 * a1 + 0.25 * b1 * b1;
  const double beta2 = k13_12 * a2 * a2 + 0.25 * b2 * b2;
  const double tau5 = std::abs(beta2 - beta0);
  const double e0 = 1e-15 * (1 + std::abs(v0) + std::abs(v1) + std::abs(v2));
  const double e1 = 1e-15 * (1 + std::abs(v1) + std::abs(v2) + std::abs(v3));
  const double e2 = 1e-15 * (1 + std::abs(v2) + std::abs(v3) + std::abs(v4));
  const double r0 = tau5 / (beta0 + e0), r1 = tau5 / (beta1 + e1), r2 = tau5 / (beta2 + e2);
  const double w0 = (1.0 / 16) * (1 + r0 * r0);
  const double w1 = (10.0 / 16) * (1 + r1 * r1);
  const double w2 = (5.0 / 16) * (1 + r2 * r2);
  return (w0 * p0 + w1 * p1 + w2 * p2) / (w0 + w1 + w2);
}

}  // namespace hydro
