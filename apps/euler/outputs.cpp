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

void write_vtk(tessera::Session& session, tessera::AmrMesh& mesh, const Options& o,
               const Geometry& geo, double time, const std::string& path) {
  // Rows: level, cell index i j k at that level, block, rho, vx, vy, vz, p, rank.
  constexpr std::size_t kWidth = 11;
  const tessera::BlockShape& s = mesh.shape();
  const tessera::BlockLayout l = s.layout();
  const auto sv = static_cast<std::size_t>(l.stride_var());
  std::vector<double> rows;
  rows.reserve(static_cast<std::size_t>(mesh.local_block_count()) * s.interior_cells() * kWidth);
  const auto rank = static_cast<double>(session.rank());
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const tessera::BlockPlace& place = mesh.place(b);
    const auto block = static_cast<double>(mesh.forest().global_index({false, b}));
    std::array<std::int64_t, 3> base{};
    for (int a = 0; a < 3; ++a) base[a] = place.origin[a] / place.length() * s.cells[a];
    const double* data = mesh.data(b);
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k) {
          const double* u = data + l.index(0, i, j, k);
          const double rho = u[0];
          rows.insert(
              rows.end(),
              {static_cast<double>(place.level), static_cast<double>(base[0] + i),
               static_cast<double>(base[1] + j), static_cast<double>(base[2] + k), block, rho,
               u[sv] / rho, u[2 * sv] / rho, u[3 * sv] / rho, pressure(u, sv, o.gamma), rank});
        }
  }
  std::vector<double> all = gather_rows(session.comm().mpi(), rows, session.size(), session.rank());
  if (session.rank() != 0) return;
  const std::size_t cells = all.size() / kWidth;
  const int corners = o.dim == 3 ? 8 : 4;
  std::ostringstream out;
  out << "# vtk DataFile Version 3.0\n";
  out << fmt::format(
      "tessera euler {} t={:.17g} dim {} block_cells {} {} {}\nASCII\nDATASET UNSTRUCTURED_GRID\n",
      o.problem_name, time, o.dim, o.block_cells[0], o.block_cells[1], o.block_cells[2]);
  out << fmt::format("POINTS {} double\n", cells * static_cast<std::size_t>(corners));
  for (std::size_t c = 0; c < cells; ++c) {
    const double* row = &all[c * kWidth];
    const int level = static_cast<int>(row[0]);
    std::array<std::array<double, 2>, 3> box{};
    for (int a = 0; a < 3; ++a) {
      // Refined axes halve the cell per level; a flat z keeps its one level-0 cell.
      const int l = a < o.dim ? level : 0;
      const double h = std::ldexp(geo.dx[a], -l);
      const double mid = geo.centre(a, static_cast<std::int64_t>(row[1 + a]), l);
      box[a] = {mid - 0.5 * h, mid + 0.5 * h};
    }
    // VTK_PIXEL / VTK_VOXEL corner order: x fastest, then y, then z.
    for (int corner = 0; corner < corners; ++corner)
      out << fmt::format("{:.17g} {:.17g} {:.17g}\n", box[0][corner & 1], box[1][(corner >> 1) & 1],
                         box[2][(corner >> 2) & 1]);
  }
  out << fmt::format("CELLS {} {}\n", cells, cells * static_cast<std::size_t>(corners + 1));
  for (std::size_t c = 0; c < cells; ++c) {
    out << corners;
    for (int k = 0; k < corners; ++k) out << ' ' << c * static_cast<std::size_t>(corners) + k;
    out << '\n';
  }
  out << fmt::format("CELL_TYPES {}\n", cells);
  const char* type = o.dim == 3 ? "11\n" : "8\n";
  for (std::size_t c = 0; c < cells; ++c) out << type;
  out << fmt::format("CELL_DATA {}\n", cells);
  const auto scalar = [&](const char* name, std::size_t q, const char* vtk_type, const char* f) {
    out << fmt::format("SCALARS {} {} 1\nLOOKUP_TABLE default\n", name, vtk_type);
    for (std::size_t c = 0; c < cells; ++c)
      out << fmt::format(fmt::runtime(f), all[c * kWidth + q]);
  };
  scalar("rho", 5, "double", "{:.9g}\n");
  out << "VECTORS v double\n";
  for (std::size_t c = 0; c < cells; ++c)
    out << fmt::format("{:.9g} {:.9g} {:.9g}\n", all[c * kWidth + 6], all[c * kWidth + 7],
                       all[c * kWidth + 8]);
  scalar("p", 9, "double", "{:.9g}\n");
  scalar("level", 0, "int", "{:.0f}\n");
  scalar("rank", 10, "int", "{:.0f}\n");
  scalar("block", 4, "int", "{:.0f}\n");
  tessera::write_file_atomically(path, out.str());
}

}  // namespace euler
