#pragma once
// WENO5-Z reconstruction: the value at a cell face from the five values centred on the
// cell, in two forms that share the Jiang-Shu smoothness indicators beta_k and the Borges
// et al. (2008) weights
//   alpha_k = d_k (1 + (tau5 / (beta_k + eps_k))^2),  tau5 = |beta_2 - beta_0|,
// with eps_k = 1e-15 (1 + sum of |v| over stencil k) so that constant data gives the
// linear weights d_k without dividing by zero:
// - weno5z_face, point-interpolation form (HARD's spec/limiter.hh scheme, radhydro's): the
//   values are treated as point values; candidate stencils (3/8, -5/4, 15/8), (-1/8, 3/4,
//   3/8), (3/8, 3/4, -1/8), d = 1/16, 10/16, 5/16 (together fifth-order interpolation). On
//   cell means the face value is off by h^2 u'' / 24, so a finite-volume scheme built on it
//   is second order on smooth flows.
// - weno5z_mean_face, finite-volume form (Borges et al.'s): the values are cell means;
//   candidate stencils (1/3, -7/6, 11/6), (-1/6, 5/6, 1/3), (1/3, 5/6, -1/6), d = 1/10,
//   6/10, 3/10 (together fifth-order reconstruction of the face value from the means).
// Both are pure: callable from any task, concurrently. The face between v2 and v3 (the
// right face of the centre cell v2) comes from v0..v4 = v[i-2..i+2]; the left face of
// cell i is the same function of (v4, v3, v2, v1, v0).

#include <cmath>

namespace hydro {

/// The WENO5-Z combination of the candidate values p0..p2 of stencils 0..2 of v0..v4 with
/// linear weights d0..d2. Always inlined: out of line (g++ 12 keeps it so), the callers'
/// face loops make scalar calls and do not vectorize.
[[gnu::always_inline]] inline double weno5z_blend(double v0, double v1, double v2, double v3,
                                                  double v4, double p0, double p1, double p2,
                                                  double d0, double d1, double d2) {
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
  const double w0 = d0 * (1 + r0 * r0);
  const double w1 = d1 * (1 + r1 * r1);
  const double w2 = d2 * (1 + r2 * r2);
  return (w0 * p0 + w1 * p1 + w2 * p2) / (w0 + w1 + w2);
}

/// Point-interpolation form: the face value of point values v0..v4.
[[gnu::always_inline]] inline double weno5z_face(double v0, double v1, double v2, double v3,
                                                 double v4) {
  const double p0 = 0.375 * v0 - 1.25 * v1 + 1.875 * v2;
  const double p1 = -0.125 * v1 + 0.75 * v2 + 0.375 * v3;
  const double p2 = 0.375 * v2 + 0.75 * v3 - 0.125 * v4;
  return weno5z_blend(v0, v1, v2, v3, v4, p0, p1, p2, 1.0 / 16, 10.0 / 16, 5.0 / 16);
}

/// Finite-volume form: the face value from the cell means v0..v4.
[[gnu::always_inline]] inline double weno5z_mean_face(double v0, double v1, double v2, double v3,
                                                      double v4) {
  constexpr double k1_3 = 1.0 / 3, k1_6 = 1.0 / 6, k5_6 = 5.0 / 6, k7_6 = 7.0 / 6, k11_6 = 11.0 / 6;
  const double p0 = k1_3 * v0 - k7_6 * v1 + k11_6 * v2;
  const double p1 = -k1_6 * v1 + k5_6 * v2 + k1_3 * v3;
  const double p2 = k1_3 * v2 + k5_6 * v3 - k1_6 * v4;
  return weno5z_blend(v0, v1, v2, v3, v4, p0, p1, p2, 0.1, 0.6, 0.3);
}

}  // namespace hydro
