#pragma once
// ADER-DG on one element (Dumbser et al.; ExaHyPE's scheme): the local space-time predictor
// and the corrector's volume and face terms. An element is a box of widths dx[a] holding
// kNodeVars x n^dim nodal values (variable slowest, then the tensor index, axis 0 fastest),
// n = order + 1 Gauss–Legendre nodes per axis.
//
// Predictor: on t in [t_n, t_n + dt] the solution is q(x, t) = sum_l phi_l(t) q_l(x) (the
// same nodal basis in time). The weak form in time with the initial state u as the upwind
// value at t_n, and the strong form in space (collocated derivative of the nodal flux), give
//   q_k = u - dt sum_l A_kl sum_a (1 / dx_a) D_a F_a(q_l),   A = K1^-1 W,
//   K1_kl = phi_k(1) phi_l(1) - w_l phi_k'(t_l),
// solved by Picard iteration from q_l = u until the update is below 1e-13 of the element's
// largest value (linear fluxes converge in n iterations; the Euler flux in a few more).
// Corrector: u += dt sum_a (1/dx_a) [W^-1 D^T W]_a Fbar_a - dt/dx_a lift of the face fluxes,
// with Fbar_a = sum_l w_l F_a(q_l), qbar = sum_l w_l q_l the time averages; the face flux is
// (Fbar_L + Fbar_R)/2 + dissipation(qbar_L, qbar_R) (node_physics.hpp).

#include <array>
#include <cstdint>
#include <vector>

#include "nodal_basis.hpp"
#include "node_physics.hpp"

namespace euler::dg {

/// The matrices of one order. Immutable after construction: share between threads.
struct AderOperators {
  explicit AderOperators(int order);
  NodalBasis basis;
  int n = 0;
  std::vector<double> derivative, derivative_t;  ///< D_ij = L_j'(x_i), and D^T
  std::vector<double> volume, volume_t;          ///< W^-1 D^T W, and its transpose
  std::vector<double> time_step;                 ///< A = K1^-1 W (n x n)
  std::array<std::vector<double>, 2> lift;       ///< L_i(side) / w_i
};

/// Scratch of the predictor for one order and dimension; one per thread.
struct AderWorkspace {
  AderWorkspace(int order, int dim);
  std::vector<double> q, q_next, flux, residual;
};

/// What the predictor produced for one element.
struct Prediction {
  int iterations = 0;      ///< Picard iterations run
  bool admissible = true;  ///< false: a space-time node with rho <= 0 or p <= 0 (or NaN)
};

/// The predictor of element `u` (kNodeVars x n^dim) over dt: writes the time averages
/// q_avg (kNodeVars x n^dim) and flux_avg (dim blocks of kNodeVars x n^dim, axis a's flux
/// first). dx: the element's widths. Pure function of its inputs (same bits on any thread).
Prediction predict(const AderOperators& ops, int dim, const double* u, double dt,
                   const std::array<double, 3>& dx, double gamma, AderWorkspace& ws, double* q_avg,
                   double* flux_avg);

/// Values of one face trace: 2 (q, then the normal flux) x kNodeVars x n^(dim-1).
inline int face_trace_size(int n, int dim) {
  int s = 2 * kNodeVars;
  for (int a = 1; a < dim; ++a) s *= n;
  return s;
}

/// The traces of the time averages on the element's faces: traces + (2 axis + side)
/// face_trace_size holds face (axis, side), side 0 = lower.
void face_traces(const AderOperators& ops, int dim, const double* q_avg, const double* flux_avg,
                 double* traces);

/// u += dt sum_a (1/dx_a) (W^-1 D^T W)_a flux_avg_a: the corrector's volume term.
void add_volume_term(const AderOperators& ops, int dim, const double* flux_avg, double dt,
                     const std::array<double, 3>& dx, double* u);

/// The numerical flux (kNodeVars x n^(dim-1)) on a face normal to `axis` from the traces of
/// the lower element's upper face and the upper element's lower face (face_traces layout).
/// Returns false (flux unset) if a trace state is not admissible.
bool face_flux(int n, int dim, int axis, const double* lower_trace, const double* upper_trace,
               double gamma, FaceFlux kind, double* flux);

/// u -= sign dt/dx_axis lift_side x flux, sign = +1 on the upper face (side 1), -1 on the
/// lower: the corrector's face term of face (axis, side).
void add_face_term(const AderOperators& ops, int dim, int axis, int side, const double* flux,
                   double dt_dx, double* u);

/// The largest stable step of element u for Courant number cfl:
///   cfl / (2 order + 1) / max over nodes of sum_a (|v_a| + c) / dx_a.
/// Returns 0 if a node is not admissible.
double stable_dt(int order, int dim, const double* u, const std::array<double, 3>& dx, double gamma,
                 double cfl);

/// The counted floating-point operations of the flop model (docs/apps/euler.md, "DG
/// kernels"): of one predictor call with `iterations` Picard iterations, and of one element's
/// corrector (volume term, face traces, its share of the face fluxes and lifts).
std::int64_t predictor_flops(int order, int dim, int iterations);
std::int64_t corrector_flops(int order, int dim);

}  // namespace euler::dg
