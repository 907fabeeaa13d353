#pragma once
// The per-block kernels of radhydro's radiation step (gray flux-limited diffusion, cgs):
// the implicit gas-radiation energy exchange per cell, the set-up of the implicit
// diffusion system for E_r with D = c lambda / (kappa rho) (Levermore-Pomraning limiter,
// harmonic face means), one damped-Jacobi sweep of it and its residual. Pure functions of
// a block's data: callable from any task, a block gives the same bits anywhere.

#include "block_kernels.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/mesh/block_layout.hpp"

namespace radhydro {

/// Variables of a block's diffusion system: six face couplings, then the right-hand side.
inline constexpr int kDiffusionVars = 7;

/// The radiation parameters of a run.
struct Radiation {
  double kappa = 0.4;    ///< opacity, cm^2/g (absorption and diffusion alike)
  bool exchange = true;  ///< gas-radiation exchange (off: pure diffusion)
  bool limiter = true;   ///< Levermore-Pomraning lambda(R); false: lambda = 1/3
  double theta = 0.5;    ///< implicitness of the diffusion: 1 backward Euler, 1/2 C-N
  double omega = 0.8;    ///< Jacobi damping (HARD's)
  /// E_r incident on the low domain face of incident_axis (marshak); 0: none.
  double incident_er = 0;
  int incident_axis = 0;
};

/// lambda(R) = (2 + R) / (6 + 3R + R^2), the Levermore-Pomraning flux limiter.
inline double lp_limiter(double r) {
  return (2 + r) / (6 + 3 * r + r * r);
}

/// The backward-Euler exchange over dt in every interior cell of u (which holds E and E_r):
/// with k = c kappa rho dt, E_r' = (E_r + k a T^4) / (1 + k) and the gas energy
/// rho e' = rho e + E_r - E_r', T the root of C_v T + (E_r + k a T^4) / (1 + k) =
/// rho e + E_r (bracketed Newton; with Su-Olson's material, a T^4 / eps + (E_r + k a T^4) /
/// (1 + k) = rho e + E_r, solved for a T^4 directly). Conserves rho e + E_r per cell to
/// round-off. Returns false at the first cell whose gas energy is not positive or E_r
/// negative, or (`extrapolated`: IMEX's second implicit stage, whose input extrapolates
/// the first stage and may leave the physical states) where no positive temperature
/// solves it; the new E_r is then (E_r + k a T^4) / (1 + k), negative where the input's is
/// and k a T^4 does not outweigh it (the stage's combination brings U^{n+1} back).
bool exchange_energy(const tessera::BlockLayout& layout, const Scheme& scheme, const Radiation& rad,
                     double dt, double* u, CellFault& fault, bool extrapolated = false);

/// Fills the diffusion system of one block: coef (kDiffusionVars variables on the block's
/// interior: the six face couplings theta dt D_f / dx_f^2, x-low, x-high, y-low, ...,
/// then the explicit part of the right-hand side) from u (interior and face ghosts: rho
/// and E_r^n):
///   b = (1 - theta) dt div(D grad E_r^n)   (finish_setup adds E_r^n).
/// D is evaluated at each face from E_r^n (lagged): D_f = c lambda(R_f) / (kappa rho_f),
/// R_f = |E_j - E_i| / dx / (kappa rho_f E_f), rho_f and E_f the two cells' means (a
/// face-normal gradient: it needs face ghosts only). Flow and reflecting ghosts copy or
/// mirror the cell, so the domain faces carry no radiation flux, except where `lit` (the
/// block lies on the low domain face of rad.incident_axis): there Marshak's condition
/// E_b - (2 D / c) dE/dx = incident_er at the face gives the flux (incident_er - E) / (dx /
/// (2 D) + 2 / c) into the cell (D = c / (3 kappa rho)); its implicit part beta = theta dt
/// / (dx (dx / (2 D) + 2 / c)) enters by scaling the cell's row by 1 / (1 + beta) (the
/// face's coupling 0), so the system keeps its form.
void setup_diffusion(const tessera::BlockLayout& layout, const Scheme& scheme, const Radiation& rad,
                     double dt, const double* u, const tessera::BlockLayout& coef_layout,
                     double* coef, bool lit = false);

/// b += E_r and e = E_r: the system's right-hand side and the solve's first iterate.
void finish_setup(const tessera::BlockLayout& layout, const double* u,
                  const tessera::BlockLayout& coef_layout, double* coef,
                  const tessera::BlockLayout& e_layout, double* e);

/// E_r = e on the block's interior (the solve's result back into the state).
void store_radiation(const tessera::BlockLayout& e_layout, const double* e,
                     const tessera::BlockLayout& layout, double* u);

/// One damped-Jacobi sweep of (1 + sum c_f) E - sum c_f E_f = b from `in` (1 variable,
/// face ghosts filled) into `out`'s interior.
void jacobi_sweep(const tessera::BlockLayout& layout, const tessera::BlockLayout& coef_layout,
                  const double* coef, double omega, int dim, const double* in, double* out);

/// Adds r^2 (r = (b - A E) / diag(A): the change a Jacobi sweep would make) and E^2 over
/// the block's interior to the sums: sqrt(r2 / e2) is the solve's relative residual, a
/// measure that does not grow with dt D / dx^2 (whose rounding alone makes b - A E of
/// order 1e-16 dt D / dx^2 |E|).
void add_residual_squares(const tessera::BlockLayout& layout,
                          const tessera::BlockLayout& coef_layout, const double* coef, int dim,
                          const double* e, tessera::ExactSum& r2, tessera::ExactSum& e2);

}  // namespace radhydro
