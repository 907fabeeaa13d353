#include "outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tessera/comm/exact_sum.hpp"
#include "tessera/driver/cell_walk.hpp"

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
  std::vector<tessera::ExactSum> sums(bins * 4);
  tessera::for_each_cell(
      mesh, 0,
      [&](int level, const std::array<std::int64_t, 3>& g, const double* u, std::size_t sv) {
        double r2 = 0, x[3] = {0, 0, 0};
        const double w = std::ldexp(1.0, -o.dim * level);  // volume relative to a level-0 cell
        for (int a = 0; a < o.dim; ++a) {
          x[a] = geo.centre(a, g[a], level) - 0.5 * (geo.lo[a] + geo.hi[a]);
          r2 += x[a] * x[a];
        }
        const double r = std::sqrt(r2);
        const auto bin = std::min(bins - 1, static_cast<std::size_t>(r / dr));
        double vr = 0;
        if (r > 0)
          for (int a = 0; a < o.dim; ++a) vr += u[(1 + a) * sv] / u[0] * x[a] / r;
        sums[bin * 4].add(w);
        sums[bin * 4 + 1].add(u[0] * w);
        sums[bin * 4 + 2].add(vr * w);
        sums[bin * 4 + 3].add(pressure(u, sv, o.gamma) * w);
      });
  const tessera::Handle h = session.runtime().create_handle("euler.profile");
  for (tessera::ExactSum& s : sums) session.comm().iallreduce_sum(h, &s);
  session.runtime().wait_for(h);
  RadialProfile profile;
  for (std::size_t b = 0; b < bins; ++b) {
    double v[4];
    for (int q = 0; q < 4; ++q) v[q] = sums[b * 4 + static_cast<std::size_t>(q)].value();
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
