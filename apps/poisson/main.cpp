// poisson: FleCSI's tutorial problem -Laplace(u) = f on the unit square (cube with --dim 3),
// exact solution sin(K pi x) sin(L pi y) (sin(M pi z)), Dirichlet boundary values from it,
// solved by red-black Gauss-Seidel (--solver rbgs) or by multigrid V-cycles with red-black
// smoothing (--solver mg), under any execution model.
//
// An rbgs iteration is a red and a black half-sweep, each a task per block preceded by a
// halo exchange, so each colour reads the other colour's newest values across block and
// rank boundaries. Every --sweeps-per-check iterations (every V-cycle for mg) the relative
// residual is summed exactly over all ranks and the solve stops once it is at most
// --tolerance. The red-black order is global, so u after any number of iterations is
// bitwise the same for every block size, rank count, thread count and execution model.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "grid_level.hpp"
#include "multigrid.hpp"
#include "residual_monitor.hpp"
#include "sine_problem.hpp"
#include "tessera/balance_options.hpp"
#include "tessera/io/block_field_checkpoint.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

namespace tessera::poisson {
namespace {

// Exit status of a solve that did not reach its tolerance (2 is bad input).
constexpr int kNotConverged = 3;

struct Options {
  int dim = 2;
  std::vector<int> cells;        // default: 128 128 (2-D), 64 64 64 (3-D)
  std::vector<int> block_cells;  // default: 32 32 (2-D), 16 16 16 (3-D)
  std::vector<int> modes;        // default: 12 2 (2-D), 12 2 2 (3-D)
  std::string solver = "rbgs";
  double tolerance = 1e-8;
  int max_iterations = 10000;
  int sweeps_per_check = 100;
  std::string history;
  bool replay = true;
  int levels = 0;  // 0: as many as the grid allows
  CycleOptions cycle{.pre_sweeps = 2, .post_sweeps = 2, .coarse_iterations = 0};
  CheckpointOptions checkpoint;
  BalanceOptions balance;  // --balance: only count, the blocks cannot move
};

/// Declares poisson's options. The grid, the exact solution, the solver and its
/// convergence settings define the solve (a restart takes them from the checkpoint); the
/// run length --iterations, --history and the run-time options may change.
void declare_options(OptionRegistry& registry, Options& o) {
  constexpr OptionRole problem = OptionRole::problem;
  registry.add("--dim", o.dim, "2 (unit square, default) or 3 (unit cube)", problem)
      ->check(CLI::IsMember({2, 3}));
  registry
      .add("--cells", o.cells,
           "grid cells per axis NX NY [NZ], one per dimension (default 128 128, or "
           "64 64 64 with --dim 3); the unknowns are the interior grid vertices",
           problem)
      ->expected(2, 3);
  registry
      .add("--block-cells", o.block_cells,
           "cells per block NX NY [NZ], each dividing --cells (default 32 32, or "
           "16 16 16 with --dim 3)",
           problem)
      ->expected(2, 3);
  registry
      .add("--modes", o.modes,
           "half-waves K L [M] of the exact solution per axis, 1 <= K < NX etc. "
           "(default 12 2, or 12 2 2 with --dim 3)",
           problem)
      ->expected(2, 3);
  registry
      .add("--solver", o.solver,
           "rbgs (red-black Gauss-Seidel, default) | mg (multigrid V-cycles with "
           "red-black smoothing)",
           problem)
      ->check(CLI::IsMember({"rbgs", "mg"}));
  registry.add("--tolerance", o.tolerance, "stop once ||f - A u|| / ||f|| <= this (>= 0)", problem);
  registry.add("--iterations,--max-iterations", o.max_iterations,
               "stop after this many iterations (rbgs: red+black sweeps; mg: V-cycles) "
               "even if the tolerance is not reached (>= 1)");
  registry.add("--sweeps-per-check", o.sweeps_per_check,
               "rbgs iterations between residual checks (>= 1); mg "
               "checks after every V-cycle",
               problem);
  registry.add("--history", o.history,
               "write the residual history as CSV (iteration,time_s,residual) to this file");
  registry.add_flag("!--no-replay", o.replay,
                    "dataflow: submit every iteration's tasks instead of recording one iteration "
                    "(rbgs: red+black; mg: a V-cycle) and replaying it (same results)");
  registry.add("--levels", o.levels,
               "mg: grid levels including the finest (default 0 = as many as the grid allows: "
               "each halves the cells per axis, down to 2 or an odd count)",
               problem);
  registry.add("--pre-sweeps", o.cycle.pre_sweeps,
               "mg: red-black iterations before restricting (>= 0)", problem);
  registry.add("--post-sweeps", o.cycle.post_sweeps,
               "mg: red-black iterations after prolonging (>= 0)", problem);
  registry.add("--coarse-iterations", o.cycle.coarse_iterations,
               "mg: red-black iterations on the coarsest level (default 0 = N^2 / 2 for its "
               "largest cell count N, at least 1)",
               problem);
  declare_checkpoint_options(
      registry, o.checkpoint,
      "iterations (V-cycles with --solver mg), at the first residual check at or "
      "after each multiple");
  declare_balance_options(registry, o.balance, false);
}

// Checks a per-axis option: as many values as dimensions, each in [lo, hi_of(axis)].
template <class Hi>
void check_axes(Session& session, const char* option, const std::vector<int>& values, int dim,
                int lo, Hi&& hi_of, const char* what) {
  if (static_cast<int>(values.size()) != dim) {
    session.fail(option, fmt::format("--dim {} needs {} values, got {}", dim, dim, values.size()));
  }
  for (int a = 0; a < dim; ++a) {
    const long hi = hi_of(a);
    if (values[a] < lo || values[a] > hi) {
      session.fail(option, fmt::format("{} value {}: {} must be in [{}, {}]", "xyz"[a], values[a],
                                       what, lo, hi));
    }
  }
}

Int3 to_int3(const std::vector<int>& v) {
  return {v[0], v[1], v.size() > 2 ? v[2] : 1};
}

void validate(Session& session, Options& o) {
  const bool cube = o.dim == 3;
  if (o.cells.empty()) o.cells = cube ? std::vector<int>{64, 64, 64} : std::vector<int>{128, 128};
  if (o.block_cells.empty()) {
    o.block_cells = cube ? std::vector<int>{16, 16, 16} : std::vector<int>{32, 32};
  }
  if (o.modes.empty()) o.modes = cube ? std::vector<int>{12, 2, 2} : std::vector<int>{12, 2};
  check_axes(
      session, "--cells", o.cells, o.dim, 2, [](int) { return 1L << 24; }, "a grid axis");
  check_axes(
      session, "--block-cells", o.block_cells, o.dim, 1, [&](int a) { return long{o.cells[a]}; },
      "cells per block");
  for (int a = 0; a < o.dim; ++a) {
    if (o.cells[a] % o.block_cells[a] != 0) {
      session.fail("--block-cells",
                   fmt::format("{} value {} does not divide --cells {} (the grid is cut into "
                               "equal blocks)",
                               "xyz"[a], o.block_cells[a], o.cells[a]));
    }
  }
  check_axes(
      session, "--modes", o.modes, o.dim, 1, [&](int a) { return long{o.cells[a]} - 1; },
      "half-waves (a grid of N cells resolves modes 1 .. N-1)");
  if (!(o.tolerance >= 0) || !std::isfinite(o.tolerance)) {
    session.fail("--tolerance", fmt::format("must be a number >= 0, got {}", o.tolerance));
  }
  if (o.max_iterations < 1) {
    session.fail("--iterations", fmt::format("must be >= 1, got {}", o.max_iterations));
  }
  if (o.sweeps_per_check < 1) {
    session.fail("--sweeps-per-check", fmt::format("must be >= 1, got {}", o.sweeps_per_check));
  }
  if (o.cycle.pre_sweeps < 0 || o.cycle.post_sweeps < 0) {
    session.fail(
        o.cycle.pre_sweeps < 0 ? "--pre-sweeps" : "--post-sweeps",
        fmt::format("must be >= 0, got {}", std::min(o.cycle.pre_sweeps, o.cycle.post_sweeps)));
  }
  if (o.cycle.coarse_iterations < 0) {
    session.fail("--coarse-iterations",
                 fmt::format("must be >= 0 (0 = automatic), got {}", o.cycle.coarse_iterations));
  }
  if (o.solver == "rbgs") {
    if (o.levels > 1) {
      session.fail("--levels",
                   fmt::format("rbgs solves on one level; got {} (use --solver mg)", o.levels));
    }
    o.levels = 1;
  } else {
    const int most = max_levels(to_int3(o.cells), to_int3(o.block_cells), o.dim);
    if (o.levels < 0 || o.levels > most) {
      session.fail(
          "--levels",
          fmt::format("{} does not fit --cells {} in --block-cells {}: use 0 (as many "
                      "as fit) or 1 to {} (each level halves the cells per axis down "
                      "to 2, and fine blocks need even cell counts)",
                      o.levels, fmt::join(o.cells, " "), fmt::join(o.block_cells, " "), most));
    }
    if (o.levels == 0) o.levels = most;
  }
  if (!o.history.empty()) {
    const auto dir = std::filesystem::path(o.history).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir)) {
      session.fail("--history", fmt::format("directory '{}' does not exist", dir.string()));
    }
  }
}

std::string axes_text(const std::vector<int>& v) {
  return fmt::format("{}", fmt::join(v, " x "));
}

int run(int argc, char** argv) {
  Session session(argc, argv, "poisson",
                  "FleCSI's Poisson problem: red-black Gauss-Seidel or multigrid");
  Options options;
  declare_options(session.option_registry(), options);
  session.start();
  refuse_cost_balance(session, options.balance, "poisson");
  // A restart takes the problem options from the checkpoint; options given must agree.
  std::unique_ptr<CheckpointReader> restart = open_restart(session, options.checkpoint, "poisson");
  validate(session, options);

  const Int3 cells = to_int3(options.cells);
  const Int3 block_cells = to_int3(options.block_cells);
  const Int3 blocks{cells.x / block_cells.x, cells.y / block_cells.y, cells.z / block_cells.z};
  const Int3 modes = to_int3(options.modes);
  std::unique_ptr<PoissonGrids> grids;
  try {
    session.check_memory(
        "--cells/--block-cells/--levels",
        PoissonGrids::memory_estimate(cells, block_cells, options.levels, session.size()));
    grids =
        std::make_unique<PoissonGrids>(session, cells, block_cells, options.dim, options.levels);
  } catch (const std::invalid_argument& e) {
    session.fail("--cells/--block-cells/--levels", e.what());
  }
  GridLevel* finest = &grids->finest();
  const SineProblem problem(cells, options.dim, modes);
  CycleOptions cycle = options.cycle;
  if (options.solver == "mg" && cycle.coarse_iterations == 0) {
    const Int3 coarsest = grids->level(grids->levels() - 1).cells();
    const int n = std::max({coarsest.x, coarsest.y, options.dim == 3 ? coarsest.z : 0});
    const std::int64_t half_square = std::int64_t{n} * n / 2;
    cycle.coarse_iterations = static_cast<int>(std::clamp<std::int64_t>(half_square, 1, 1 << 30));
  }

  session.progress(
      "poisson: {} on {} cells in {} blocks of {}, modes {}, tolerance {:g}, {} on {} rank(s) "
      "x {} thread(s)",
      options.solver, axes_text(options.cells),
      axes_text(std::vector<int>(&blocks.x, &blocks.x + options.dim)),
      axes_text(options.block_cells), fmt::join(options.modes, " "), options.tolerance,
      to_string(session.options().exec), session.size(), session.runtime().threads());
  if (options.solver == "mg") {
    const Int3 coarsest = grids->level(grids->levels() - 1).cells();
    session.progress(
        "poisson: V({},{}) cycles on {} levels, coarsest {} cells with {} red-black iterations",
        cycle.pre_sweeps, cycle.post_sweeps, grids->levels(),
        axes_text(std::vector<int>(&coarsest.x, &coarsest.x + options.dim)),
        cycle.coarse_iterations);
  }

  Exec& exec = session.exec();
  exec.begin_phase("setup");
  for (LocalBlockIndex b = 0; b < finest->mesh().local_block_count(); ++b) {
    session.runtime().submit(
        "init",
        {write(finest->f().interior(b)), write(finest->u().interior(b)),
         write(finest->u().ghosts(b))},
        [layout = &finest->u().layout(), problem = &problem, cells, origin = finest->origin(b),
         f = finest->f().data(b),
         u = finest->u().data(b)] { fill_problem(*layout, *problem, cells, origin, f, u); });
  }
  exec.barrier();
  session.set_phase("solve");
  ResidualMonitor monitor(session, *finest);
  // Made now: its constructor is a blocking collective, unsafe once messages fly.
  std::unique_ptr<CheckpointWriter> writer;
  if (options.checkpoint.every > 0)
    writer = std::make_unique<CheckpointWriter>(session.comm(), options.checkpoint);
  int iterations = 0;
  double residual = 0;
  CheckpointRestore restored;
  if (restart) {
    // The finest u as it was (ghosts included); the history of the checks before it.
    restored = restore_checkpoint(session, *restart, [&] {
      read_whole_blocks(*restart, "u", finest->u());
      std::vector<HistoryPoint> earlier;
      for (const auto& p : restart->header().state.at("history"))
        earlier.push_back({p.at(0).get<int>(), p.at(2).get<double>(), p.at(1).get<double>()});
      monitor.restore_history(std::move(earlier));
      iterations = static_cast<int>(restart->header().step);
      residual = restart->header().state.at("residual").get<double>();
    });
    for (int l = 0; l < grids->levels(); ++l) grids->level(l).u_changed();
    session.progress("poisson: restarted from {} (iteration {}) on {} rank(s)", restart->file(),
                     iterations, session.size());
    restored.restarted_from = iterations;
    restart.reset();
  }
  int checkpointed = iterations;
  // Writes the state after `iterations` (a check was just made): u and the checks so far.
  const auto submit_checkpoint = [&] {
    CheckpointHeader header;
    header.app = "poisson";
    header.problem = session.option_registry().problem();
    header.step = iterations;
    header.time = iterations;
    nlohmann::json history = nlohmann::json::array();
    for (const HistoryPoint& p : monitor.history())
      history.push_back({p.iteration, p.residual, p.seconds});
    header.state = {{"history", history}, {"residual", residual}};
    writer->submit(header, checkpoint_blocks(finest->mesh()),
                   {whole_block_field("u", finest->u())});
    session.progress("poisson: checkpoint of iteration {} submitted ({}/step-{})", iterations,
                     options.checkpoint.dir, iterations);
    checkpointed = iterations;
  };

  MPI_Barrier(MPI_COMM_WORLD);
  monitor.start_clock();
  // MPI_Wtime: the simulated clock under SMPI (docs/scaling-sim.md), the monotonic one else.
  const double start = MPI_Wtime();
  if (restored.restarted_from < 0) residual = monitor.check(0);
  // Under dataflow one iteration (a V-cycle, or a red+black iteration) is recorded once
  // and replayed, so its dependencies are derived once rather than per iteration.
  const bool replay = options.replay && session.exec().model() == ExecModel::dataflow;
  Runtime& runtime = session.runtime();
  IterationGraph graph;
  const auto submit_one = [&] {
    if (options.solver == "mg") {
      grids->submit_v_cycle(cycle);
    } else {
      finest->submit_iterations(1);
    }
  };
  while (residual > options.tolerance && iterations < options.max_iterations) {
    const int count = options.solver == "mg"
                          ? 1
                          : std::min(options.sweeps_per_check, options.max_iterations - iterations);
    if (replay) {
      if (graph.empty()) {
        // The recorded iteration must start with the exchange that a fresh check made
        // unnecessary the first time: every replay runs it.
        finest->u_changed();
        runtime.begin_recording();
        submit_one();
        graph = runtime.end_recording();
      }
      runtime.replay(graph, iterations, count);
      // The replayed sweeps changed u behind the levels' backs: their ghosts are stale.
      for (int l = 0; l < grids->levels(); ++l) grids->level(l).u_changed();
    } else {
      for (int i = 0; i < count; ++i) submit_one();
    }
    iterations += count;
    residual = monitor.check(iterations);
    const int every = options.checkpoint.every;
    if (writer && iterations / every > checkpointed / every) submit_checkpoint();
  }
  if (writer) writer->wait();
  double solve_s = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &solve_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const bool converged = residual <= options.tolerance;

  const ErrorNorms error = measure_error(session, *finest, problem);
  const double checksum = measure_checksum(session, *finest);
  session.say(
      "poisson: {} {} the tolerance {:g} after {} iterations: residual {:.6e}, error l2 "
      "{:.6e} max {:.6e} vs the exact solution; {:.3f} s",
      options.solver, converged ? "reached" : "did NOT reach", options.tolerance, iterations,
      residual, error.l2, error.max, solve_s);

  nlohmann::json history = nlohmann::json::array();
  std::string csv = "iteration,time_s,residual\n";
  for (const HistoryPoint& p : monitor.history()) {
    history.push_back(
        {{"iteration", p.iteration}, {"time_s", p.seconds}, {"residual", p.residual}});
    csv += fmt::format("{},{:.6f},{:.17g}\n", p.iteration, p.seconds, p.residual);
  }
  if (!options.history.empty() && session.rank() == 0) {
    write_file_atomically(options.history, csv);
  }
  nlohmann::json fields = {
      {"checksum", hex_bits(checksum)},
      {"checksum_value", checksum},
      {"solver", options.solver},
      {"dim", options.dim},
      {"cells", options.cells},
      {"block_cells", options.block_cells},
      {"modes", options.modes},
      {"tolerance", options.tolerance},
      {"max_iterations", options.max_iterations},
      {"sweeps_per_check", options.sweeps_per_check},
      {"levels", options.levels},
      {"replay", options.replay && session.exec().model() == ExecModel::dataflow},
      {"iterations", iterations},
      {"converged", converged},
      {"residual", residual},
      {"residual_hex", hex_bits(residual)},
      {"l2_error", error.l2},
      {"max_error", error.max},
      {"solve_s", solve_s},
      {"history", history},
      {"checkpoint", checkpoint_report(writer.get(), restored)},
  };
  if (options.solver == "mg") {
    fields["pre_sweeps"] = cycle.pre_sweeps;
    fields["post_sweeps"] = cycle.post_sweeps;
    fields["coarse_iterations"] = cycle.coarse_iterations;
  }
  session.finish(std::move(fields));
  // A solve that stops at --max-iterations short of a positive tolerance failed what it was
  // asked to do: scripts see it in the exit status (the report is still written).
  // --tolerance 0 asks for exactly --max-iterations iterations and succeeds.
  if (!converged && options.tolerance > 0) {
    if (session.rank() == 0) {
      std::fprintf(stderr,
                   "poisson: warning: --max-iterations %d reached before --tolerance %g "
                   "(residual %.6e); exit status %d\n",
                   options.max_iterations, options.tolerance, residual, kNotConverged);
    }
    return kNotConverged;
  }
  return 0;
}

}  // namespace
}  // namespace tessera::poisson

int main(int argc, char** argv) {
  return tessera::run_guarded([&] { return tessera::poisson::run(argc, argv); });
}
