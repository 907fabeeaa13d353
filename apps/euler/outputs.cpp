#include "outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace euler {

std::vector<tessera::CellQuantity> primitive_quantities(double gamma) {
  return {{"rho", 1, [](const double* u, std::size_t, double* out) { out[0] = u[0]; }},
          {"v", 3,
           [](const double* u, std::size_t sv, double* out) {
             for (std::size_t a = 0; a < 3; ++a) out[a] = u[(a + 1) * sv] / u[0];
           }},
          {"p", 1, [gamma](const double* u, std::size_t sv, double* out) {
             out[0] = pressure(u, sv, gamma);
           }}};
}

RadialProfile radial_profile(tessera::Session& session, tessera::AmrMesh& mesh, const Options& o,
                             const Geometry& geo) {
  double dr = geo.dx[0];
  double r_max = 0;
  for (int a = 0; a < o.dim; ++a) {
    dr = std::min(dr, geo.dx[a]);
    r_max += 0.25 * (geo.hi[a] - geo.lo[a]) * (geo.hi[a] - geo.lo[a]);
  }
  const auto bins = static_cast<std::size_t>(std::ceil(std::sqrt(r_max) / dr)) + 1;
  // Per bin: cells, rho, vr, p as exact sums, so the profile does not depend on the ranks.
  const std::vector<double> sums =
      volume_sums(session, mesh, o.dim, bins * 4,
                  [&](int level, const auto& g, const double* u, std::size_t sv, const auto& add) {
                    double r2 = 0, x[3] = {0, 0, 0};
                    for (int a = 0; a < o.dim; ++a) {
                      x[a] = geo.centre(a, g[a], level) - 0.5 * (geo.lo[a] + geo.hi[a]);
                      r2 += x[a] * x[a];
                    }
                    const double r = std::sqrt(r2);
                    const auto bin = std::min(bins - 1, static_cast<std::size_t>(r / dr));
                    double vr = 0;
                    if (r > 0)
                      for (int a = 0; a < o.dim; ++a) vr += u[(1 + a) * sv] / u[0] * x[a] / r;
                    add(bin * 4, 1.0);
                    add(bin * 4 + 1, u[0]);
                    add(bin * 4 + 2, vr);
                    add(bin * 4 + 3, pressure(u, sv, o.gamma));
                  });
  RadialProfile profile;
  for (std::size_t b = 0; b < bins; ++b) {
    const double* v = sums.data() + b * 4;
    if (v[0] == 0) continue;
    profile.r.push_back((static_cast<double>(b) + 0.5) * dr);
    profile.rho.push_back(v[1] / v[0]);
    profile.vr.push_back(v[2] / v[0]);
    profile.p.push_back(v[3] / v[0]);
  }
  return profile;
}

void write_radial_profile(tessera::Session& session, const RadialProfile& profile,
                          const std::string& path) {
  if (session.rank() != 0) return;
  std::ostringstream out;
  out << "r,rho,vr,p\n";
  for (std::size_t i = 0; i < profile.r.size(); ++i)
    out << fmt::format("{:.17g},{:.17g},{:.17g},{:.17g}\n", profile.r[i], profile.rho[i],
                       profile.vr[i], profile.p[i]);
  tessera::write_file_atomically(path, out.str());
}

}  // namespace euler
