#include "options.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tessera/restart.hpp"
#include "tessera/runtime/compute_hook.hpp"

namespace radhydro {

using tessera::OptionRole;
using tessera::Session;

void declare_options(tessera::OptionRegistry& registry, Options& o) {
  constexpr OptionRole problem = OptionRole::problem;
  registry.add("--dim", o.dim, "1 (default), 2 or 3", problem)->check(CLI::IsMember({1, 2, 3}));
  registry.add("--cells", o.cells,
               "cells of the whole domain NX [NY [NZ]], one per dimension (default 256, "
               "128 128, 64 64 64)",
               problem);
  registry.add("--block-cells", o.block_cells,
               "cells per block, each dividing --cells and >= 3 (default: --cells up to "
               "64, 32 or 16 per axis in 1-D, 2-D, 3-D)",
               problem);
  registry.add("--problem", o.problem,
               "sod (default) | rankine-hugoniot | leblanc | sedov | acoustic-wave | "
               "heating-cooling | gaussian-pulse | marshak | rad-shock",
               problem);
  registry.add("--axis", o.axis_name,
               "direction of the shock tube or wave x | y | z (an axis of --dim; default x)",
               problem);
  registry.add("--gamma", o.gamma, "ratio of specific heats > 1 (default 1.4)", problem);
  registry.add("--mu", o.mu,
               "mean molecular weight > 0: T = (gamma - 1) mu m_p e / k_B (default: the "
               "problem's, 1; rad-shock 0.5)",
               problem);
  registry.add("--cfl", o.cfl,
               "Courant number in (0, 1]: dt = cfl min dx / max(|v| + c) (default 0.3)", problem);
  registry.add("--t-end", o.t_end, "end time > 0 (default: the problem's, 0.2 for the shock tubes)",
               problem);
  registry.add("--max-cycles", o.max_cycles, "stop after this many cycles; 0 = no limit");
  registry.add("--boundary", o.boundary_names,
               "problem (the problem's own, default) | flow | reflecting | periodic: one value "
               "for every domain face, or two per axis (low high) for --dim axes",
               problem);
  registry.add("--radiation", o.radiation,
               "problem (default: on for heating-cooling, gaussian-pulse, marshak, rad-shock) | on "
               "| off (pure "
               "hydro, HARD's hydro-only executable)",
               problem);
  registry.add("--kappa", o.kappa,
               "opacity in cm^2/g > 0, for absorption and diffusion alike (default: the "
               "problem's, 0.4)",
               problem);
  registry.add("--max-dt", o.max_dt,
               "largest time step > 0 (default: the problem's; none but heating-cooling's 1 s)",
               problem);
  registry.add("--rad-solver", o.rad_solver,
               "jacobi (damped Jacobi sweeps, omega 0.8, as HARD v1.0's 100 sweeps, default) | "
               "mg (geometric multigrid V-cycles, Jacobi smoothing)",
               problem);
  registry.add("--rad-sweeps", o.rad_sweeps,
               "sweeps (jacobi) or V-cycles (mg) per step, fixed (HARD: 100 sweeps); 0 "
               "(default) = until --rad-tolerance",
               problem);
  registry.add("--rad-tolerance", o.rad_tolerance,
               "relative residual ||(b - A E) / diag(A)|| / ||E|| > 0 the solve reaches "
               "(default 1e-10)",
               problem);
  registry.add("--rad-max-iterations", o.rad_max_iterations,
               "sweeps at most per step before the run stops (>= 1, default 10000)", problem);
  registry.add("--rad-theta", o.rad_theta,
               "implicitness of the diffusion in [0.5, 1]: 0.5 Crank-Nicolson (default), 1 "
               "backward Euler",
               problem);
  registry.add("--coupling", o.coupling,
               "split (default: the radiation step, then the two hydro stages; first order) | "
               "imex (IMEX-SSP2(2,2,2): hydro explicit, exchange and diffusion implicit; "
               "second order)",
               problem);
  registry.add(
      "--flux-limiter", o.flux_limiter,
      "problem (default: none for gaussian-pulse, marshak) | lp (Levermore-Pomraning) | none "
      "(lambda = 1/3)",
      problem);
  registry.add("--radiation-force", o.radiation_force,
               "problem (default: on for rad-shock, off in the static media of heating-cooling "
               "and gaussian-pulse) | on | off: the radiation force, its work and -P:grad v",
               problem);
  registry.add("--exchange", o.exchange,
               "problem (default: off for gaussian-pulse) | on | off: implicit gas-radiation "
               "energy exchange",
               problem);
  registry
      .add("--face-state", o.face_state,
           "hard (default: c and e reconstructed like the primitives, face energy rho e + "
           "rho |u|^2 / 2, as HARD) | eos (c and the energy from the reconstructed p by the EOS)",
           problem)
      ->check(CLI::IsMember({"hard", "eos"}));
  registry.add("--lineout", o.lineout,
               "CSV file x,rho,vx,vy,vz,p,T,Er along x through the domain centre at the end");
  registry.add("--progress-every", o.progress_every, "cycles between progress lines (default 50)");
  registry.add_flag("--replay,!--no-replay", o.replay,
                    "dataflow: record the hydro stages and fixed Jacobi sweeps once and replay "
                    "them every cycle instead of submitting them (same results; a replay "
                    "first waits for every earlier task; default off)");
  tessera::declare_checkpoint_options(registry, o.checkpoint, "cycles");
}

namespace {

Boundary parse_boundary(Session& session, const std::string& name, const std::string& problem,
                        int axis, int face) {
  if (name == "problem") return Problem::default_boundary(problem, axis, face);
  if (name == "flow" || name == "outflow") return Boundary::flow;
  if (name == "reflecting") return Boundary::reflecting;
  if (name == "periodic") return Boundary::periodic;
  session.fail("--boundary", fmt::format("unknown value '{}': allowed problem | flow | "
                                         "reflecting | periodic",
                                         name));
}

}  // namespace

void validate(Session& session, Options& o) {
  const auto& names = Problem::problem_names();
  if (std::find(names.begin(), names.end(), o.problem) == names.end()) {
    session.fail("--problem", fmt::format("unknown problem '{}': allowed {}", o.problem,
                                          fmt::join(names, " | ")));
  }
  const ProblemDefaults defaults = Problem::defaults(o.problem);
  const auto on_off = [&](const char* option, const std::string& value, bool fallback,
                          const char* on_name) {
    if (value == "problem") return fallback;
    if (value == on_name) return true;
    if (value == "off" || value == "none") return false;
    session.fail(option, fmt::format("unknown value '{}': allowed problem | {} | {}", value,
                                     on_name, std::string(on_name) == "on" ? "off" : "none"));
  };
  o.radiation_on = on_off("--radiation", o.radiation, defaults.radiation, "on");
  o.exchange_on = on_off("--exchange", o.exchange, defaults.exchange, "on");
  o.radiation_force_on =
      on_off("--radiation-force", o.radiation_force, defaults.radiation_force, "on");
  o.limiter_on = on_off("--flux-limiter", o.flux_limiter, defaults.limiter, "lp");
  if (std::isnan(o.kappa)) o.kappa = defaults.kappa;
  if (!(o.kappa > 0) || !std::isfinite(o.kappa)) {
    session.fail("--kappa", fmt::format("must be a number > 0 (cm^2/g), got {}", o.kappa));
  }
  if (o.max_dt == 0) o.max_dt = defaults.max_dt;
  if (!(o.max_dt >= 0) || !std::isfinite(o.max_dt)) {
    session.fail("--max-dt", fmt::format("must be a number > 0, got {}", o.max_dt));
  }
  if (o.rad_solver != "jacobi" && o.rad_solver != "mg") {
    session.fail("--rad-solver",
                 fmt::format("unknown solver '{}': allowed jacobi | mg", o.rad_solver));
  }
  if (o.coupling != "split" && o.coupling != "imex") {
    session.fail("--coupling",
                 fmt::format("unknown coupling '{}': allowed split | imex", o.coupling));
  }
  if (o.rad_sweeps < 0) {
    session.fail("--rad-sweeps",
                 fmt::format("must be >= 0 (0 = to --rad-tolerance), got {}", o.rad_sweeps));
  }
  if (!(o.rad_tolerance > 0) || !std::isfinite(o.rad_tolerance)) {
    session.fail("--rad-tolerance", fmt::format("must be a number > 0, got {}", o.rad_tolerance));
  }
  if (o.rad_max_iterations < 1) {
    session.fail("--rad-max-iterations", fmt::format("must be >= 1, got {}", o.rad_max_iterations));
  }
  if (!(o.rad_theta >= 0.5 && o.rad_theta <= 1)) {
    session.fail("--rad-theta", fmt::format("must be in [0.5, 1], got {}", o.rad_theta));
  }
  if (o.axis_name.size() != 1 || o.axis_name[0] < 'x' || o.axis_name[0] > 'z' ||
      o.axis_name[0] - 'x' >= o.dim) {
    session.fail("--axis", fmt::format("'{}' is not an axis of --dim {}: allowed {}", o.axis_name,
                                       o.dim, std::string("x | y | z").substr(0, 4 * o.dim - 3)));
  }
  o.axis = o.axis_name[0] - 'x';
  static const int kDefaultCells[3] = {256, 128, 64};
  static const int kDefaultBlock[3] = {64, 32, 16};
  if (o.cells.empty()) o.cells.assign(o.dim, kDefaultCells[o.dim - 1]);
  if (static_cast<int>(o.cells.size()) != o.dim) {
    session.fail("--cells",
                 fmt::format("--dim {} needs {} values, got {}", o.dim, o.dim, o.cells.size()));
  }
  for (int a = 0; a < o.dim; ++a) {
    if (o.cells[a] < 3 || o.cells[a] > (1 << 24)) {
      session.fail("--cells",
                   fmt::format("{} value {} must be in [3, {}]", "xyz"[a], o.cells[a], 1 << 24));
    }
  }
  if (o.block_cells.empty()) {
    for (int a = 0; a < o.dim; ++a) {
      o.block_cells.push_back(std::min(o.cells[a], kDefaultBlock[o.dim - 1]));
    }
  }
  if (static_cast<int>(o.block_cells.size()) != o.dim) {
    session.fail("--block-cells", fmt::format("--dim {} needs {} values, got {}", o.dim, o.dim,
                                              o.block_cells.size()));
  }
  for (int a = 0; a < o.dim; ++a) {
    if (o.block_cells[a] < 3 || o.cells[a] % o.block_cells[a] != 0) {
      session.fail("--block-cells",
                   fmt::format("{} value {} must be >= 3 (the scheme's 3 ghost layers) and "
                               "divide --cells {}",
                               "xyz"[a], o.block_cells[a], o.cells[a]));
    }
  }
  if (!(o.gamma > 1) || !std::isfinite(o.gamma)) {
    session.fail("--gamma", fmt::format("must be a number > 1, got {}", o.gamma));
  }
  if (std::isnan(o.mu)) o.mu = defaults.mu;
  if (!(o.mu > 0) || !std::isfinite(o.mu)) {
    session.fail("--mu", fmt::format("must be a number > 0, got {}", o.mu));
  }
  if (!(o.cfl > 0 && o.cfl <= 1)) {
    session.fail("--cfl", fmt::format("must be in (0, 1], got {}", o.cfl));
  }
  if (o.t_end == 0) o.t_end = defaults.t_end;
  if (!(o.t_end > 0) || !std::isfinite(o.t_end)) {
    session.fail("--t-end", fmt::format("must be a number > 0, got {}", o.t_end));
  }
  if (o.max_cycles < 0) {
    session.fail("--max-cycles", fmt::format("must be >= 0, got {}", o.max_cycles));
  }
  if (o.progress_every < 1) {
    session.fail("--progress-every", fmt::format("must be >= 1, got {}", o.progress_every));
  }
  const int given = static_cast<int>(o.boundary_names.size());
  if (given != 1 && given != 2 * o.dim) {
    session.fail("--boundary",
                 fmt::format("give 1 value or {} (low high per axis), got {}", 2 * o.dim, given));
  }
  for (int face = 0; face < 6; ++face) {
    const std::string& name = given == 1 ? o.boundary_names[0] : o.boundary_names[face];
    o.boundary[face] =
        face < 2 * o.dim ? parse_boundary(session, name, o.problem, o.axis, face) : Boundary::flow;
  }
  for (int a = 0; a < o.dim; ++a) {
    if ((o.boundary[2 * a] == Boundary::periodic) !=
        (o.boundary[2 * a + 1] == Boundary::periodic)) {
      session.fail("--boundary", fmt::format("periodic on one {} face only: both faces of an "
                                             "axis are periodic or neither",
                                             "xyz"[a]));
    }
  }
  if (tessera::compute_bodies_skipped()) {
    // A simulation that skips the bodies (docs/scaling-sim.md, "Skipped bodies") has no
    // field values: the time step and the solve's length must not come from them.
    constexpr const char* kWhy = "with TESSERA_COMPUTE_SKIP_BODIES=1 (no field values)";
    if (o.max_dt <= 0) {
      session.fail("--max-dt", fmt::format("{} the time step is --max-dt: give one > 0", kWhy));
    }
    if (o.max_cycles <= 0) {
      session.fail("--max-cycles",
                   fmt::format("{} the run stops at --max-cycles: give one > 0", kWhy));
    }
    if (o.radiation_on && o.rad_sweeps <= 0) {
      session.fail("--rad-sweeps", fmt::format("{} the radiation solve is a fixed count: give "
                                               "--rad-sweeps > 0",
                                               kWhy));
    }
  }
  if (!o.lineout.empty()) {
    const auto dir = std::filesystem::path(o.lineout).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir)) {
      session.fail("--lineout", fmt::format("directory '{}' does not exist", dir.string()));
    }
  }
}

}  // namespace radhydro
