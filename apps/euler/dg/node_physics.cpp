#include "node_physics.hpp"

#include <algorithm>
#include <cmath>

namespace euler::dg {

namespace {

/// The HLLC flux (Toro, with Davis's wave-speed estimates) through a face normal to `axis`.
State hllc_flux(const State& l, const State& r, int axis, double gamma) {
  const auto a = static_cast<std::size_t>(1 + axis);
  const double pl = pressure(l, gamma), pr = pressure(r, gamma);
  const double ul = l[a] / l[0], ur = r[a] / r[0];
  const double cl = std::sqrt(gamma * pl / l[0]), cr = std::sqrt(gamma * pr / r[0]);
  const double sl = std::min(ul - cl, ur - cr), sr = std::max(ul + cl, ur + cr);
  const State fl = physical_flux(l, axis, gamma), fr = physical_flux(r, axis, gamma);
  if (sl >= 0) return fl;
  if (sr <= 0) return fr;
  const double sm = (pr - pl + l[0] * ul * (sl - ul) - r[0] * ur * (sr - ur)) /
                    (l[0] * (sl - ul) - r[0] * (sr - ur));
  // The star state of the side the contact leaves behind, and F* = F + S (U* - U).
  const bool left_side = sm >= 0;
  const State& u = left_side ? l : r;
  const State& f = left_side ? fl : fr;
  const double s = left_side ? sl : sr, un = left_side ? ul : ur, p = left_side ? pl : pr;
  const double factor = u[0] * (s - un) / (s - sm);
  State star{};
  star[0] = factor;
  for (std::size_t v = 1; v <= 3; ++v) star[v] = factor * (u[v] / u[0]);
  star[a] = factor * sm;
  star[4] = factor * (u[4] / u[0] + (sm - un) * (sm + p / (u[0] * (s - un))));
  State out{};
  for (std::size_t v = 0; v < kNodeVars; ++v) out[v] = f[v] + s * (star[v] - u[v]);
  return out;
}

}  // namespace

State face_dissipation(const State& left, const State& right, int axis, double gamma,
                       FaceFlux kind) {
  State d{};
  if (kind == FaceFlux::rusanov) {
    const double s = std::max(signal_speed(left, axis, gamma), signal_speed(right, axis, gamma));
    for (std::size_t v = 0; v < kNodeVars; ++v) d[v] = -0.5 * s * (right[v] - left[v]);
    return d;
  }
  const State h = hllc_flux(left, right, axis, gamma);
  const State fl = physical_flux(left, axis, gamma), fr = physical_flux(right, axis, gamma);
  for (std::size_t v = 0; v < kNodeVars; ++v) d[v] = h[v] - 0.5 * (fl[v] + fr[v]);
  return d;
}

}  // namespace euler::dg
