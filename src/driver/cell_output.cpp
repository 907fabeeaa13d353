#include "tessera/driver/cell_output.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <sstream>

#include "tessera/driver/cell_walk.hpp"

namespace tessera {

namespace {

std::size_t values_per_cell(const std::vector<CellQuantity>& quantities) {
  std::size_t n = 0;
  for (const CellQuantity& q : quantities) n += static_cast<std::size_t>(q.components);
  return n;
}

void append_values(const std::vector<CellQuantity>& quantities, const double* u, std::size_t sv,
                   std::vector<double>& rows) {
  for (const CellQuantity& q : quantities) {
    double out[3] = {0, 0, 0};
    q.value(u, sv, out);
    rows.insert(rows.end(), out, out + q.components);
  }
}

}  // namespace

std::vector<double> gather_to_root(MPI_Comm comm, const std::vector<double>& values) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  int count = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(static_cast<std::size_t>(ranks));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    int total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      displs[r] = total;
      total += counts[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(values.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, comm);
  return all;
}

void write_cell_lineout(Session& session, AmrMesh& mesh, const Domain& domain, int group,
                        const std::vector<CellQuantity>& quantities, int axis,
                        const std::string& path) {
  const std::size_t width = 1 + values_per_cell(quantities);
  std::vector<double> rows;
  for_each_cell(
      mesh, group,
      [&](int level, const std::array<std::int64_t, 3>& g, const double* u, std::size_t sv) {
        for (int a = 0; a < domain.dim; ++a)
          if (a != axis && g[a] != (static_cast<std::int64_t>(domain.cells[a]) << level) / 2)
            return;
        rows.push_back(domain.centre(axis, g[axis], level));
        append_values(quantities, u, sv, rows);
      });
  const std::vector<double> all = gather_to_root(session.comm().mpi(), rows);
  if (session.rank() != 0) return;
  std::vector<std::size_t> order(all.size() / width);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return all[a * width] < all[b * width]; });
  std::ostringstream out;
  out << "xyz"[axis];
  for (const CellQuantity& q : quantities)
    for (int c = 0; c < q.components; ++c)
      out << ',' << q.name << (q.components > 1 ? std::string(1, "xyz"[c]) : "");
  out << '\n';
  for (std::size_t i : order) {
    for (std::size_t c = 0; c < width; ++c)
      out << (c == 0 ? "" : ",") << fmt::format("{:.17g}", all[i * width + c]);
    out << '\n';
  }
  write_file_atomically(path, out.str());
}

void write_cells_vtk(Session& session, AmrMesh& mesh, const Domain& domain, int group,
                     const std::vector<CellQuantity>& quantities, const std::string& title,
                     double time, const std::string& path) {
  // Rows: level, cell index i j k at that level, block, the quantities, rank.
  const std::size_t width = 6 + values_per_cell(quantities);
  const BlockShape& s = mesh.shape();
  std::vector<double> rows;
  rows.reserve(static_cast<std::size_t>(mesh.local_count()) * s.interior_cells() * width);
  for_each_cell(
      mesh, group,
      [&, b = std::int32_t{0}, cells = std::size_t{0}](int level,
                                                       const std::array<std::int64_t, 3>& g,
                                                       const double* u, std::size_t sv) mutable {
        // Blocks come in local order, interior_cells() cells each.
        if (cells++ == s.interior_cells()) b++, cells = 1;
        rows.insert(rows.end(), {static_cast<double>(level), static_cast<double>(g[0]),
                                 static_cast<double>(g[1]), static_cast<double>(g[2]),
                                 static_cast<double>(mesh.forest().global_index({false, b}))});
        append_values(quantities, u, sv, rows);
        rows.push_back(static_cast<double>(session.rank()));
      });
  const std::vector<double> all = gather_to_root(session.comm().mpi(), rows);
  if (session.rank() != 0) return;
  const std::size_t cells = all.size() / width;
  const int corners = domain.dim == 3 ? 8 : 4;
  std::ostringstream out;
  out << "# vtk DataFile Version 3.0\n";
  out << fmt::format(
      "tessera {} t={:.17g} dim {} block_cells {} {} {}\nASCII\nDATASET UNSTRUCTURED_GRID\n", title,
      time, domain.dim, s.cells[0], s.cells[1], s.cells[2]);
  out << fmt::format("POINTS {} double\n", cells * static_cast<std::size_t>(corners));
  for (std::size_t c = 0; c < cells; ++c) {
    const double* row = &all[c * width];
    const int level = static_cast<int>(row[0]);
    std::array<std::array<double, 2>, 3> box{};
    for (int a = 0; a < 3; ++a) {
      // Refined axes halve the cell per level; a flat z keeps its one level-0 cell.
      const int l = a < domain.dim ? level : 0;
      const double h = std::ldexp(domain.dx[a], -l);
      const double mid = domain.centre(a, static_cast<std::int64_t>(row[1 + a]), l);
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
  for (std::size_t c = 0; c < cells; ++c) out << (domain.dim == 3 ? "11\n" : "8\n");
  out << fmt::format("CELL_DATA {}\n", cells);
  std::size_t column = 5;
  for (const CellQuantity& q : quantities) {
    if (q.components == 1)
      out << fmt::format("SCALARS {} double 1\nLOOKUP_TABLE default\n", q.name);
    else
      out << fmt::format("VECTORS {} double\n", q.name);
    for (std::size_t c = 0; c < cells; ++c)
      for (int k = 0; k < q.components; ++k)
        out << fmt::format("{:.9g}", all[c * width + column + static_cast<std::size_t>(k)])
            << (k + 1 < q.components ? ' ' : '\n');
    column += static_cast<std::size_t>(q.components);
  }
  for (const auto& [name, q] :
       {std::pair{"level", std::size_t{0}}, {"rank", width - 1}, {"block", std::size_t{4}}}) {
    out << fmt::format("SCALARS {} int 1\nLOOKUP_TABLE default\n", name);
    for (std::size_t c = 0; c < cells; ++c) out << fmt::format("{:.0f}\n", all[c * width + q]);
  }
  write_file_atomically(path, out.str());
}

}  // namespace tessera
