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

}  // namespace tessera
