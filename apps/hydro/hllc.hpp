#pragma once
// The HLLE and HLLC approximate Riemann solvers with Einfeldt's signal speeds from Roe
// averages (Athena++'s choice, euler's): HLLE is the two-wave HLL flux with those speeds;
// HLLC (Toro) restores the contact from the star-region speed s* of the two outer waves,
// with Einfeldt's speeds or Toro's pressure-based ones (PVRS, AthenaPK's choice).
// Both take the face states of hll.hpp (c and eint are not read: the EOS gives the sound
// speed and E = p / (gamma - 1) + rho (un^2 + (ut1^2 + ut2^2)) / 2) and carry E_r through
// the same waves as a passive density. Written so that mirror-image states (l <-> r, normal
// velocities negated) give exactly the mirror-image flux. Pure: callable from any task,
// concurrently.

#include <algorithm>
#include <cmath>

#include "hydro/hll.hpp"

namespace hydro {

/// E = p / (gamma - 1) + rho |u|^2 / 2 of a face state, the tangential squares summed first.
inline double eos_total_energy(const FaceState& s, const IdealGas& gas) {
  return gas.internal_energy_density(s.p) +
         0.5 * s.rho * (s.un * s.un + (s.ut1 * s.ut1 + s.ut2 * s.ut2));
}

/// The physical flux of a state whose total energy per volume is `e`.
inline FaceFlux physical_flux(const FaceState& s, double e) {
  const double mn = s.rho * s.un;
  return {mn, mn * s.un + s.p, mn * s.ut1, mn * s.ut2, (e + s.p) * s.un, s.er * s.un};
}

/// Einfeldt's bounds sl <= sr of the signal speeds from the Roe averages of l and r, whose
/// total energies are el and er.
inline void einfeldt_speeds(const FaceState& l, const FaceState& r, double el, double er,
                            const IdealGas& gas, double& sl, double& sr) {
  const double sql = std::sqrt(l.rho), sqr = std::sqrt(r.rho);
  const double isum = 1.0 / (sql + sqr);
  const double u = (sql * l.un + sqr * r.un) * isum;
  const double hl = (el + l.p) / l.rho, hr = (er + r.p) / r.rho;
  const double h = (sql * hl + sqr * hr) * isum;
  const double t1 = (sql * l.ut1 + sqr * r.ut1) * isum, t2 = (sql * l.ut2 + sqr * r.ut2) * isum;
  const double v2 = u * u + t1 * t1 + t2 * t2;
  const double c = std::sqrt(std::max((gas.gamma - 1) * (h - 0.5 * v2), 0.0));
  sl = std::min(l.un - gas.sound_speed(l.rho, l.p), u - c);
  sr = std::max(r.un + gas.sound_speed(r.rho, r.p), u + c);
}

/// Toro's pressure-based bounds (section 10.5.2): the star pressure from the primitive-
/// variable solver (PVRS) with the arithmetic mean density and sound speed, and each outer
/// wave as a shock (Rankine-Hugoniot factor) where that pressure exceeds its side's.
inline void pvrs_speeds(const FaceState& l, const FaceState& r, const IdealGas& gas, double& sl,
                        double& sr) {
  const double cl = gas.sound_speed(l.rho, l.p), cr = gas.sound_speed(r.rho, r.p);
  const double pm = 0.5 * (l.p + r.p + (l.un - r.un) * 0.5 * (l.rho + r.rho) * 0.5 * (cl + cr));
  const double g = (gas.gamma + 1) / (2 * gas.gamma);
  const double ql = pm <= l.p ? 1.0 : std::sqrt(1.0 + g * (pm / l.p - 1.0));
  const double qr = pm <= r.p ? 1.0 : std::sqrt(1.0 + g * (pm / r.p - 1.0));
  sl = l.un - cl * ql;
  sr = r.un + cr * qr;
}

/// How HLLC bounds the signal speeds.
enum class SignalSpeeds { einfeldt, pvrs };

/// The HLLE flux between l and r (rho, p > 0 on both sides).
inline FaceFlux hlle_flux(const FaceState& l, const FaceState& r, const IdealGas& gas) {
  const double el = eos_total_energy(l, gas), er = eos_total_energy(r, gas);
  double sl, sr;
  einfeldt_speeds(l, r, el, er, gas, sl, sr);
  const double bm = std::min(sl, 0.0), bp = std::max(sr, 0.0);
  const FaceFlux fl = physical_flux(l, el), fr = physical_flux(r, er);
  const double inv = 1.0 / (bp - bm);
  const auto mix = [&](double a, double b, double ua, double ub) {
    return ((bp * a - bm * b) + bp * bm * (ub - ua)) * inv;
  };
  return {mix(fl.mass, fr.mass, l.rho, r.rho),
          mix(fl.momentum_n, fr.momentum_n, l.rho * l.un, r.rho * r.un),
          mix(fl.momentum_t1, fr.momentum_t1, l.rho * l.ut1, r.rho * r.ut1),
          mix(fl.momentum_t2, fr.momentum_t2, l.rho * l.ut2, r.rho * r.ut2),
          mix(fl.energy, fr.energy, el, er),
          mix(fl.radiation, fr.radiation, l.er, r.er)};
}

/// The HLLC flux between l and r (rho, p > 0 on both sides): the flux of the side of the
/// fan the face (x/t = 0) lies in. A contact at rest on the face (s* = 0 exactly, as
/// wherever the gas is at rest or at a wall) gives (0, p*, 0, 0, 0, 0) with p* the mean of
/// both sides' star pressures, so no mass crosses and mirror images agree. `speeds` picks
/// the signal-speed bounds.
template <SignalSpeeds speeds = SignalSpeeds::einfeldt>
inline FaceFlux hllc_flux(const FaceState& l, const FaceState& r, const IdealGas& gas) {
  const double el = eos_total_energy(l, gas), er = eos_total_energy(r, gas);
  double sl, sr;
  if constexpr (speeds == SignalSpeeds::pvrs) {
    pvrs_speeds(l, r, gas, sl, sr);
  } else {
    einfeldt_speeds(l, r, el, er, gas, sl, sr);
  }
  const double ml = l.rho * (sl - l.un), mr = r.rho * (sr - r.un);  // mass fluxes through waves
  // Grouped so that the mirror image (l <-> r, speeds negated) negates s_star exactly.
  const double s_star = ((r.p - l.p) + (l.un * ml - r.un * mr)) / (ml - mr);
  if (sl >= 0) return physical_flux(l, el);
  if (sr <= 0) return physical_flux(r, er);
  // F* = F + S (U* - U) with U* = (s - un) / (s - s*) (rho, rho s*, rho ut1, rho ut2,
  // E + (s* - un)(rho s* + p / (s - un)), E_r): one division per face.
  const auto star_flux = [&](const FaceState& w, double e, double s, double m) {
    const FaceFlux f = physical_flux(w, e);
    const double inv = 1.0 / (s - s_star);
    const double rho_star = m * inv;  // m = rho (s - un)
    const double e_star = (e * (s - w.un) + (s_star - w.un) * (m * s_star + w.p)) * inv;
    const double mn = w.rho * w.un;
    return FaceFlux{f.mass + s * (rho_star - w.rho),
                    f.momentum_n + s * (rho_star * s_star - mn),
                    f.momentum_t1 + s * (rho_star * w.ut1 - w.rho * w.ut1),
                    f.momentum_t2 + s * (rho_star * w.ut2 - w.rho * w.ut2),
                    f.energy + s * (e_star - e),
                    f.radiation + s * ((s - w.un) * inv * w.er - w.er)};
  };
  if (s_star > 0) return star_flux(l, el, sl, ml);
  if (s_star < 0) return star_flux(r, er, sr, mr);
  const double p_star =
      0.5 * ((l.p + l.rho * l.un * (l.un - sl)) + (r.p + r.rho * r.un * (r.un - sr)));
  return {0.0, p_star, 0.0, 0.0, 0.0, 0.0};
}

}  // namespace hydro
