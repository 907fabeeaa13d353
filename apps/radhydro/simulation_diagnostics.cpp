// radhydro's diagnostics (simulation.hpp): the totals and checksum of the state, the L1
// errors against the problems' references, rad-shock's jump states and the lineout CSV,
// each reduced over blocks (exact sums, so the same bits on any rank and thread count) and
// ranks; and the report's totals object.

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "simulation.hpp"
#include "tessera/base/atomic_file.hpp"

namespace radhydro {

using namespace tessera;

Simulation::Sums Simulation::sums() {
  BlockSums all;
  const Handle h = session_.runtime().create_reduction_handle(
      "sums", &all, [](BlockSums& total, const BlockSums& part) {
        for (std::size_t v = 0; v < total.totals.size(); ++v) total.totals[v].add(part.totals[v]);
        total.checksum.add(part.checksum);
      });
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().submit(
        "sums", {read(u_.interior(b)), reduce(h)},
        [this, u = u_.data(b), h](TaskContext& ctx) {
          add_sums(u_.layout(), scheme_, u, ctx.reduction_slot<BlockSums>(h));
        },
        block_work());
  }
  for (auto& total : all.totals) session_.comm().iallreduce_sum(h, &total);
  session_.comm().iallreduce_sum(h, &all.checksum);
  session_.runtime().wait_for(h);
  Sums out;
  for (std::size_t v = 0; v < out.totals.size(); ++v) out.totals[v] = all.totals[v].value();
  out.checksum = all.checksum.value();
  return out;
}

std::optional<std::array<double, 3>> Simulation::errors(double t) {
  if (!problem_.has_reference()) return std::nullopt;
  std::array<ExactSum, 3> all;
  const Handle h = session_.runtime().create_reduction_handle(
      "errors", &all, [](std::array<ExactSum, 3>& total, const std::array<ExactSum, 3>& part) {
        for (int q = 0; q < 3; ++q) total[q].add(part[q]);
      });
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().submit(
        "errors", {read(u_.interior(b)), reduce(h)},
        [this, b, t, u = u_.data(b), h](TaskContext& ctx) {
          add_errors(u_.layout(), scheme_, problem_, corners_[b], t, u,
                     ctx.reduction_slot<std::array<ExactSum, 3>>(h));
        },
        block_work());
  }
  for (auto& e : all) session_.comm().iallreduce_sum(h, &e);
  session_.runtime().wait_for(h);
  std::array<double, 3> out;
  for (int q = 0; q < 3; ++q) out[q] = all[q].value() / static_cast<double>(cells());
  return out;
}

std::optional<std::array<double, 3>> Simulation::radiation_errors(double t) {
  if (!erad_ || !problem_.has_radiation_reference()) return std::nullopt;
  problem_.prepare(t);
  struct Errors {
    std::array<ExactSum, 2> sums;
    double max = 0;
  };
  Errors all;
  const Handle h = session_.runtime().create_reduction_handle(
      "rad-errors", &all, [](Errors& total, const Errors& part) {
        total.sums[0].add(part.sums[0]);
        total.sums[1].add(part.sums[1]);
        total.max = std::fmax(total.max, part.max);
      });
  const double half = 0.5 * Problem::defaults(o_.problem).length;
  const double scale = problem_.name() == "gaussian-pulse"
                           ? problem_.radiation_reference({half, half, half}, 0)[1]
                       : problem_.name() == "marshak" ? Problem::defaults(o_.problem).incident_er
                                                      : problem_.radiation_reference({}, t)[1];
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().submit(
        "rad-errors", {read(u_.interior(b)), reduce(h)},
        [this, b, t, scale, u = u_.data(b), h](TaskContext& ctx) {
          auto& part = ctx.reduction_slot<Errors>(h);
          const Int3 n = u_.layout().cells();
          for (int k = 0; k < n.z; ++k) {
            for (int j = 0; j < n.y; ++j) {
              for (int i = 0; i < n.x; ++i) {
                const std::array<double, 3> x = cell_centre(corners_[b], scheme_, i, j, k);
                const auto ref = problem_.radiation_reference(x, t);
                const CellPrimitive w = cell_primitive(u_.layout(), scheme_, u, i, j, k);
                const double er = std::abs(w.er - ref[1]) / scale;
                part.sums[0].add(std::abs(w.temperature - ref[0]) / ref[0]);
                part.sums[1].add(er);
                part.max = std::fmax(part.max, er);
              }
            }
          }
        },
        block_work());
  }
  for (auto& e : all.sums) session_.comm().iallreduce_sum(h, &e);
  session_.comm().iallreduce(h, &all.max, 1, MPI_DOUBLE, MPI_MAX);
  session_.runtime().wait_for(h);
  return std::array<double, 3>{all.sums[0].value() / static_cast<double>(cells()),
                               all.sums[1].value() / static_cast<double>(cells()), all.max};
}

std::optional<std::array<std::array<double, 4>, 2>> Simulation::jump_states() {
  if (!problem_.has_jump_reference()) return std::nullopt;
  constexpr double kJumpFraction = 0.2;
  using Sides = std::array<ExactSum, 10>;  // 4 means and a count per side
  Sides all;
  const Handle h = session_.runtime().create_reduction_handle(
      "jump-states", &all, [](Sides& total, const Sides& part) {
        for (std::size_t q = 0; q < total.size(); ++q) total[q].add(part[q]);
      });
  const int axis = problem_.axis();
  const double length = Problem::defaults(o_.problem).length;
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().submit(
        "jump-states", {read(u_.interior(b)), reduce(h)},
        [this, b, axis, length, u = u_.data(b), h](TaskContext& ctx) {
          auto& sums = ctx.reduction_slot<Sides>(h);
          const Int3 n = u_.layout().cells();
          for (int k = 0; k < n.z; ++k) {
            for (int j = 0; j < n.y; ++j) {
              for (int i = 0; i < n.x; ++i) {
                const double x = cell_centre(corners_[b], scheme_, i, j, k)[axis];
                const int side = x < kJumpFraction * length         ? 0
                                 : x > (1 - kJumpFraction) * length ? 1
                                                                    : -1;
                if (side < 0) continue;
                const CellPrimitive w = cell_primitive(u_.layout(), scheme_, u, i, j, k);
                const std::array<double, 3> v{w.vx, w.vy, w.vz};
                const std::array<double, 5> q{w.rho, v[axis], w.temperature, w.er, 1};
                for (int m = 0; m < 5; ++m) sums[5 * side + m].add(q[m]);
              }
            }
          }
        },
        block_work());
  }
  for (auto& e : all) session_.comm().iallreduce_sum(h, &e);
  session_.runtime().wait_for(h);
  std::array<std::array<double, 4>, 2> out{};
  for (int side = 0; side < 2; ++side) {
    for (int m = 0; m < 4; ++m)
      out[side][m] = all[5 * side + m].value() / all[5 * side + 4].value();
  }
  return out;
}

void Simulation::write_lineout(const std::string& file) {
  const Int3 cells = mesh_.cells();
  const int jc = cells.y / 2, kc = cells.z / 2;
  std::vector<double> rows;
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    const Int3 origin = mesh_.cell_origin(b);
    const Int3 n = mesh_.block_cells();
    if (jc < origin.y || jc >= origin.y + n.y || kc < origin.z || kc >= origin.z + n.z) continue;
    for (int i = 0; i < n.x; ++i) {
      const CellPrimitive w =
          cell_primitive(u_.layout(), scheme_, u_.data(b), i, jc - origin.y, kc - origin.z);
      rows.insert(rows.end(), {corners_[b][0] + (i + 0.5) * scheme_.dx[0], w.rho, w.vx, w.vy, w.vz,
                               w.p, w.temperature, w.er});
    }
  }
  int count = static_cast<int>(rows.size());
  std::vector<int> counts(session_.size()), offsets(session_.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < session_.size(); ++r) {
    offsets[r] = total;
    total += counts[r];
  }
  std::vector<double> all(session_.rank() == 0 ? total : 0);
  MPI_Gatherv(rows.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
              0, MPI_COMM_WORLD);
  if (session_.rank() != 0) return;
  std::vector<std::array<double, 8>> lines(total / 8);
  for (std::size_t l = 0; l < lines.size(); ++l) {
    std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(8 * l), 8, lines[l].begin());
  }
  std::sort(lines.begin(), lines.end());
  std::string csv = "x,rho,vx,vy,vz,p,T,Er\n";
  for (const auto& l : lines) csv += fmt::format("{:.17g}\n", fmt::join(l, ","));
  write_file_atomically(file, csv);
}

nlohmann::json totals_json(const Simulation::Sums& s, bool radiation) {
  nlohmann::json j = {{"mass", s.totals[0]},
                      {"momentum", {s.totals[1], s.totals[2], s.totals[3]}},
                      {"energy", s.totals[4] + (radiation ? s.totals[5] : 0.0)},
                      {"gas_energy", s.totals[4]}};
  if (radiation) j["radiation_energy"] = s.totals[5];
  return j;
}

}  // namespace radhydro
