// radhydro: radiation hydrodynamics as FleCSI's HARD runs it, on tessera's uniform block
// mesh (docs/apps/radhydro.md). The hydro part is HARD's scheme: WENO5-Z reconstruction
// of the primitives, HLL fluxes with Davis speeds, Heun / SSP-RK2 in time, 3 ghost layers.
// The Simulation (simulation.hpp) holds the mesh, the state and the tasks; this file runs
// it: the options, the restart, the cycle loop with its checkpoints, and the report.

#include <fmt/format.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "options.hpp"
#include "simulation.hpp"
#include "tessera/io/block_field_checkpoint.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

namespace radhydro {
namespace {

using namespace tessera;

// Exit status of a run stopped by a non-positive density or pressure (2 is bad input).
constexpr int kStopped = 3;

int run(int argc, char** argv) {
  Session session(argc, argv, "radhydro",
                  "radiation hydrodynamics as HARD: WENO5-Z + HLL + SSP-RK2 hydro");
  Options o;
  declare_options(session.option_registry(), o);
  session.start();
  std::unique_ptr<CheckpointReader> restart = open_restart(session, o.checkpoint, "radhydro");
  validate(session, o);

  std::unique_ptr<Simulation> sim;
  try {
    sim = std::make_unique<Simulation>(session, o);
  } catch (const std::invalid_argument& e) {
    session.fail("--cells/--block-cells", e.what());
  }
  const bool radiation = o.radiation_on;
  session.progress(
      "radhydro: {} {}-D along {}, cells {}, blocks of {}, {} on {} rank(s) x {} "
      "thread(s)",
      o.problem, o.dim, o.axis_name, fmt::join(o.cells, " x "), fmt::join(o.block_cells, " x "),
      to_string(session.exec().model()), session.size(), session.runtime().threads());

  sim->submit_initial();
  session.exec().barrier();
  session.set_phase("run");
  Simulation::Sums start_sums = sim->sums();
  std::unique_ptr<CheckpointWriter> writer;
  if (o.checkpoint.every > 0) {
    writer = std::make_unique<CheckpointWriter>(session.comm(), o.checkpoint);
  }
  int cycle = 0;
  double t = 0;
  CheckpointRestore restored;
  if (restart) {
    restored = restore_checkpoint(session, *restart, [&] {
      read_whole_blocks(*restart, "U", sim->state());
      cycle = static_cast<int>(restart->header().step);
      t = restart->header().time;
      const auto& st = restart->header().state;
      for (int v = 0; v < 6; ++v) start_sums.totals[v] = st.at("totals_start").at(v).get<double>();
      start_sums.checksum = st.at("checksum_start").get<double>();
    });
    restored.restarted_from = cycle;
    session.progress("radhydro: restarted from {} (cycle {}, t = {:.9g}) on {} rank(s)",
                     restart->file(), cycle, t, session.size());
    restart.reset();
  }
  int checkpointed = cycle;
  const auto submit_checkpoint = [&] {
    CheckpointHeader header;
    header.app = "radhydro";
    header.problem = session.option_registry().problem();
    header.step = cycle;
    header.time = t;
    header.state = {{"totals_start", start_sums.totals}, {"checksum_start", start_sums.checksum}};
    writer->submit(header, checkpoint_blocks(sim->mesh()), {whole_block_field("U", sim->state())});
    session.progress("radhydro: checkpoint of cycle {} submitted", cycle);
    checkpointed = cycle;
  };

  MPI_Barrier(MPI_COMM_WORLD);
  const double loop_start = MPI_Wtime();
  const int first_cycle = cycle;
  bool ok = sim->scan(cycle, t);
  double dt = 0;
  while (ok && t < o.t_end && (o.max_cycles == 0 || cycle < o.max_cycles)) {
    dt = sim->next_dt(t);
    ok = sim->cycle(dt, cycle + 1, t);
    if (!ok) break;
    t = t + dt >= o.t_end ? o.t_end : t + dt;
    ++cycle;
    if (cycle % o.progress_every == 0) {
      session.progress("cycle {:>6}  t {:.6e}  dt {:.6e}", cycle, t, dt);
    }
    if (writer && cycle / o.checkpoint.every > checkpointed / o.checkpoint.every) {
      submit_checkpoint();
    }
  }
  if (writer) writer->wait();
  double loop_s = MPI_Wtime() - loop_start;
  MPI_Allreduce(MPI_IN_PLACE, &loop_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (!ok) return kStopped;

  const Simulation::Sums end_sums = sim->sums();
  const auto errors = sim->errors(t);
  const auto rad_errors = sim->radiation_errors(t);
  const auto jump = sim->jump_states();
  if (!o.lineout.empty()) {
    session.exec().barrier();
    sim->write_lineout(o.lineout);
  }
  const double zone_cycles =
      static_cast<double>(sim->cells()) * (cycle - first_cycle) / std::fmax(loop_s, 1e-300);
  nlohmann::json fields = {
      {"checksum", hex_bits(end_sums.checksum)},
      {"checksum_value", end_sums.checksum},
      {"problem", o.problem},
      {"dim", o.dim},
      {"axis", o.axis_name},
      {"cells", o.cells},
      {"block_cells", o.block_cells},
      {"radiation", radiation},
      {"face_state", o.face_state},
      {"gamma", o.gamma},
      {"mu", o.mu},
      {"cfl", o.cfl},
      {"t_end", o.t_end},
      {"cycles", cycle},
      {"t", t},
      {"t_hex", hex_bits(t)},
      {"dt_last", dt},
      {"loop_s", loop_s},
      {"zone_cycles_per_s", zone_cycles},
      {"totals_start", totals_json(start_sums, radiation)},
      {"totals_end", totals_json(end_sums, radiation)},
      {"totals_end_hex",
       {hex_bits(end_sums.totals[0]), hex_bits(end_sums.totals[1]), hex_bits(end_sums.totals[2]),
        hex_bits(end_sums.totals[3]), hex_bits(end_sums.totals[4])}},
      {"checkpoint", checkpoint_report(writer.get(), restored)},
  };
  if (radiation) {
    fields["kappa"] = o.kappa;
    fields["rad_solver"] = o.rad_solver;
    fields["rad_sweeps"] = o.rad_sweeps;
    fields["rad_tolerance"] = o.rad_tolerance;
    fields["rad_theta"] = o.coupling == "imex" ? 1.0 : o.rad_theta;
    fields["coupling"] = o.coupling;
    fields["exchange"] = o.exchange_on;
    fields["radiation_force"] = o.radiation_force_on;
    fields["flux_limiter"] = o.limiter_on ? "lp" : "none";
    fields["rad_iterations"] = sim->rad_sweeps_total();
    fields["rad_iterations_per_cycle"] =
        cycle > first_cycle ? static_cast<double>(sim->rad_sweeps_total()) / (cycle - first_cycle)
                            : 0.0;
    fields["rad_iterations_max"] = sim->rad_sweeps_max();
    fields["rad_residual"] = sim->rad_residual();
    fields["totals_end_hex"].push_back(hex_bits(end_sums.totals[5]));
  }
  if (rad_errors) {
    fields["l1_t"] = (*rad_errors)[0];
    fields["l1_er"] = (*rad_errors)[1];
    fields["linf_er"] = (*rad_errors)[2];
    if (o.problem == "marshak") fields["tau"] = marshak_tau(t, o.kappa);
  }
  if (jump) {
    // Reached and reference states and their relative differences per side.
    const auto ref = sim->problem().jump_reference();
    const char* names[] = {"rho", "u", "T", "Er"};
    nlohmann::json j;
    std::array<double, 2> worst{};  // rho, u, T only (E_r upstream carries the precursor)
    for (int side = 0; side < 2; ++side) {
      nlohmann::json reached, reference, error;
      for (int m = 0; m < 4; ++m) {
        const double rel = std::abs((*jump)[side][m] - ref[side][m]) / ref[side][m];
        reached[names[m]] = (*jump)[side][m];
        reference[names[m]] = ref[side][m];
        error[names[m]] = rel;
        if (m < 3) worst[side] = std::fmax(worst[side], rel);
      }
      const std::string where = side == 0 ? "upstream" : "downstream";
      j[where] = reached;
      j[where + "_reference"] = reference;
      j[where + "_rel_error"] = error;
    }
    fields["jump"] = j;
    session.say(
        "radhydro: jump states reached (relative to Moens et al.'s): rho, u, T within {:.3e} "
        "upstream, {:.3e} downstream; E_r {:.3e} upstream, {:.3e} downstream",
        worst[0], worst[1], j["upstream_rel_error"]["Er"].get<double>(),
        j["downstream_rel_error"]["Er"].get<double>());
  }
  if (errors) {
    fields["l1_rho"] = (*errors)[0];
    fields["l1_vx"] = (*errors)[1];
    fields["l1_p"] = (*errors)[2];
  }
  if (rad_errors) {
    session.say(
        "radhydro: radiation: {} sweeps in all, residual {:.3e}; L1 T {:.4e} E_r {:.4e} "
        "(relative)",
        sim->rad_sweeps_total(), sim->rad_residual(), (*rad_errors)[0], (*rad_errors)[1]);
  }
  session.say(
      "radhydro: {} {}-D {} cells, {} cycles to t = {:.6g}: checksum {}{}; {:.3g} "
      "zone-cycles/s",
      o.problem, o.dim, sim->cells(), cycle, t, hex_bits(end_sums.checksum),
      errors ? fmt::format(", L1 rho {:.4e} v {:.4e} p {:.4e}", (*errors)[0], (*errors)[1],
                           (*errors)[2])
             : std::string(),
      zone_cycles);
  session.finish(std::move(fields));
  return 0;
}

}  // namespace
}  // namespace radhydro

int main(int argc, char** argv) {
  return tessera::run_guarded([&] { return radhydro::run(argc, argv); });
}
