#pragma once
// The HLL approximate Riemann solver (Harten, Lax and van Leer 1983) with Davis wave-speed
// bounds clipped at zero, as HARD uses it (app/numerical_algorithms/riemann_solvers.hh):
//   S_L = min(0, u_L - c_L, u_R - c_R),  S_R = max(0, u_L + c_L, u_R + c_R),
//   F = (S_R F_L - S_L F_R + S_L S_R (U_R - U_L)) / (S_R - S_L).
// The radiation energy density E_r is advected with the gas (flux E_r u_n) through the
// same wave fan.

#include "hydro/ideal_gas.hpp"

namespace hydro {

/// The primitive state on one side of a face, velocities split into the face normal
/// `un` and the two transverse components. `c` is the sound speed and `eint` the internal
/// energy per volume: the caller chooses whether they come from the EOS or from their own
/// reconstruction, as HARD does (eint < 0: from p by the EOS). `er` is the radiation
/// energy density (0 without radiation).
struct FaceState {
  double rho = 1, un = 0, ut1 = 0, ut2 = 0, p = 1, c = 1, er = 0;
  double eint = -1;
};

/// Fluxes across a face of the conserved rho, rho u (normal, transverse 1 and 2), the
/// total energy E = rho e + rho |u|^2 / 2 and E_r.
struct FaceFlux {
  double mass = 0, momentum_n = 0, momentum_t1 = 0, momentum_t2 = 0, energy = 0, radiation = 0;
};

/// Total energy per volume of a face state: eint (or p's by the EOS) + rho |u|^2 / 2.
inline double total_energy(const FaceState& s, const IdealGas& gas) {
  return (s.eint >= 0 ? s.eint : gas.internal_energy_density(s.p)) +
         0.5 * s.rho * (s.un * s.un + s.ut1 * s.ut1 + s.ut2 * s.ut2);
}

/// The exact flux of the Euler equations (and of advected E_r) of one state.
inline FaceFlux physical_flux(const FaceState& s, const IdealGas& gas) {
  const double mass = s.rho * s.un;
  return {mass,
          mass * s.un + s.p,
          mass * s.ut1,
          mass * s.ut2,
          (total_energy(s, gas) + s.p) * s.un,
          s.er * s.un};
}

/// The HLL flux between left state `l` and right state `r`. Needs c > 0 on one side at
/// least (then S_R > S_L). Pure: callable from any task, concurrently.
inline FaceFlux hll_flux(const FaceState& l, const FaceState& r, const IdealGas& gas) {
  // Plain comparisons, not std::fmin / fmax: g++ keeps those as library calls (their NaN
  // and signed-zero rules), which stops a loop over faces from vectorizing. The speeds
  // are finite; only the sign of a zero bound can differ.
  const auto min = [](double a, double b) { return b < a ? b : a; };
  const auto max = [](double a, double b) { return a < b ? b : a; };
  const double sl = min(0.0, min(l.un - l.c, r.un - r.c));
  const double sr = max(0.0, max(l.un + l.c, r.un + r.c));
  const FaceFlux fl = physical_flux(l, gas);
  const FaceFlux fr = physical_flux(r, gas);
  const double inv = 1.0 / (sr - sl);
  const double slsr = sl * sr;
  const auto mix = [&](double a, double b, double ua, double ub) {
    return (sr * a - sl * b + slsr * (ub - ua)) * inv;
  };
  return {mix(fl.mass, fr.mass, l.rho, r.rho),
          mix(fl.momentum_n, fr.momentum_n, l.rho * l.un, r.rho * r.un),
          mix(fl.momentum_t1, fr.momentum_t1, l.rho * l.ut1, r.rho * r.ut1),
          mix(fl.momentum_t2, fr.momentum_t2, l.rho * l.ut2, r.rho * r.ut2),
          mix(fl.energy, fr.energy, total_energy(l, gas), total_energy(r, gas)),
          mix(fl.radiation, fr.radiation, l.er, r.er)};
}

}  // namespace hydro
