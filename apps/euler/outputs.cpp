#include "outputs.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tessera/comm/exact_sum.hpp"

namespace euler {

namespace {

// Gathers `values` (rows of `width` doubles) from every rank onto rank 0.
std::vector<double> gather_rows(MPI_Comm comm, const std::vector<double>& values, int ranks,
                                int rank) {
  int count = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(static_cast<std::size_t>(ranks));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < ranks; ++r) {
      displs[static_cast<std::size_t>(r)] = total;
      total += counts[static_cast<std::size_t>(r)];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(values.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, comm);
  return all;
}

double pressure(const double* u, std::size_t sv, double gamma) {
  const double rho = u[0];
  double kinetic = 0;
  for (int a = 1; a <= 3; ++a) kinetic += u[a * sv] * u[a * sv];
  return (gamma - 1) * (u[4 * sv] - 0.5 * kinetic / rho);
}

}  // namespace

void write_lineout(tessera::Session& session, tessera::AmrMesh& mesh, const Options& o,
                   const Geometry& geo, int axis, const std::string& path) {
  constexpr int kWidth = 6;
  std::vector<double> rows;
  for_each_cell(mesh, [&](int level, const std::array<std::int64_t, 3>& g, const double* u,
                          std::size_t sv) {
    for (int a = 0; a < 3; ++a)
      if (a != axis && a < o.dim && g[a] != (static_cast<std::int64_t>(geo.cells[a]) << level) / 2)
        return;
    const double rho = u[0];
    rows.insert(rows.end(), {geo.centre(axis, g[axis], level), rho, u[sv] / rho, u[2 * sv] / rho,
                             u[3 * sv] / rho, pressure(u, sv, o.gamma)});
  });
  std::vector<double> all = gather_rows(session.comm().mpi(), rows, session.size(), session.rank());
  if (session.rank() != 0) return;
  std::vector<std::size_t> order(all.size() / kWidth);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return all[a * kWidth] < all[b * kWidth]; });
  std::ostringstream out;
  out << "xyz"[axis] << ",rho,vx,vy,vz,p\n";
  for (std::size_t i : order)
    out << fmt::format("{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g}\n", all[i * kWidth],
                       all[i * kWidth + 1], all[i * kWidth + 2], all[i * kWidth + 3],
                       all[i * kWidth + 4], all[i * kWidth + 5]);
  tessera::write_file_atomically(path, out.str());
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
  for_each_cell(
      mesh, [&](int level, const std::array<std::int64_t, 3>& g, const double* u, std::size_t sv) {
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

tessera::PlotFiles write_output(tessera::AmrMesh& mesh, const Options& o, const Geometry& geo,
                                int cycle, double time) {
  tessera::PlotOutput out;
  out.dir = o.output_dir;
  out.prefix = o.output_prefix;
  out.step = cycle;
  out.time = time;
  out.lo = geo.lo;
  out.hi = geo.hi;
  out.variables = {{"rho", 0}, {"mom_x", 1}, {"mom_y", 2}, {"mom_z", 3}, {"energy", 4}};
  return tessera::write_plot_file(mesh, out);
}

}  // namespace euler
