#include "options.hpp"
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tessera/amr/forest.hpp"

#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"

namespace miniamr {

void register_options(tessera::Session& session, Options& o,
                      std::vector<std::vector<double>>& raw_objects) {
  constexpr auto kProblem = tessera::OptionRole::problem;
  tessera::OptionRegistry& registry = session.option_registry();
  CLI::App& cli = session.cli();
  const char* const axis_names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    registry.add(fmt::format("--n{}", axis_names[a]), o.block_cells[static_cast<std::size_t>(a)],
                 fmt::format("cells per block along {} (even, default 10)", axis_names[a]),
                 kProblem);
    registry.add(
        fmt::format("--init_{}", axis_names[a]), o.init_blocks[static_cast<std::size_t>(a)],
        fmt::format("initial blocks per rank-grid cell along {} (default 1)", axis_names[a]),
        kProblem);
    registry.add(fmt::format("--np{}", axis_names[a]), o.rank_grid[static_cast<std::size_t>(a)],
                 fmt::format("miniAMR rank grid along {}: the mesh has np{} * init_{} level-0 "
                             "blocks along {} (default 1; any number of ranks may run it)",
                             axis_names[a], axis_names[a], axis_names[a], axis_names[a]),
                 kProblem);
  }
  registry.add("--max_blocks", o.max_blocks, "most blocks a rank may hold (default 500)", kProblem);
  registry.add("--num_refine", o.num_refine, "refinement levels above level 0 (default 5)",
               kProblem);
  registry.add("--block_change", o.block_change,
               "refinement iterations per refinement step after the first (default num_refine)",
               kProblem);
  registry.add("--uniform_refine", o.uniform_refine,
               "1 = refine every block to num_refine once, no objects (default 0)", kProblem);
  registry.add("--refine_freq", o.refine_freq, "timesteps between refinement steps (default 5)",
               kProblem);
  registry.add("--num_vars", o.num_vars, "variables per cell (default 40)", kProblem);
  registry.add("--comm_vars", o.comm_vars, "variables per communication group; 0 = all (default 0)",
               kProblem);
  // The shared vocabulary's names (docs/options.md), miniAMR's spellings as aliases.
  registry.add("--max-cycles,--num_tsteps", o.num_tsteps, "timesteps (default 20)");
  registry.add("--stages_per_ts", o.stages_per_ts, "stages per timestep (default 20)", kProblem);
  registry.add("--checksum_freq", o.checksum_freq,
               "checksum every this many stages; 0 = never (default 5)", kProblem);
  registry.add("--stencil", o.stencil, "7 or 27 point stencil (default 7)", kProblem);
  registry.add("--error_tol", o.error_tol, "checksum tolerance is 10^-error_tol (default 8)",
               kProblem);
  registry.add("--num_objects", o.num_objects, "number of --object options (default 0)", kProblem);
  cli.add_option("--object", raw_objects,
                 "type bounce cx cy cz mx my mz sx sy sz ix iy iz: an object that drives "
                 "refinement (repeat for each object)")
      ->expected(14)
      ->allow_extra_args(false);
  registry.add_flag("--send-faces,--send_faces", o.send_faces,
                    "one message per face instead of per neighbour rank");
  registry.add("--max-comm-tasks,--max_comm_tasks", o.max_comm_tasks,
               "with --send-faces: most messages per neighbour rank and axis; 0 = one per face");
  registry.add_flag("--separate-buffers,--separate_buffers", o.separate_buffers,
                    "a message buffer per axis (the axes' messages do not wait for each other)");
  registry.add_flag("--report_diffusion", o.report_diffusion, "print every checksum");
  registry.add("--report_perf", o.report_perf,
               "bits: 4 = end-of-run report, 8 = block counts after every refinement (default 12)");
  registry.add("--lb_opt", o.lb_opt,
               "load balancing: 0 none, 1 after each refinement step, 2 also after every "
               "iteration (default 1)",
               kProblem);
  registry.add("--inbalance", o.inbalance,
               "percent of imbalance that triggers load balancing (default 0)", kProblem);
  registry.add("--plot_freq", o.plot_freq,
               "write plot files (HDF5 + XDMF: every variable, level and rank of every block) at "
               "timestep 0, every this many timesteps and at the end; 0 = never (default 0)");
  registry.add("--plot_prefix", o.plot_prefix,
               "path prefix of the plot files: <prefix>_<T>.h5 and .xmf, the series <prefix>.xdmf "
               "(default miniamr_mesh)");
  tessera::declare_checkpoint_options(registry, o.checkpoint, "timesteps");
  tessera::declare_balance_options(registry, o.balance, false);
}

nlohmann::json problem_options(tessera::Session& session,
                               const std::vector<std::vector<double>>& raw_objects) {
  nlohmann::json j = session.option_registry().problem();
  j["--object"] = raw_objects;
  return j;
}

tessera::AmrDriverOptions driver_options(const Options& o, nlohmann::json problem) {
  tessera::AmrDriverOptions d;
  d.root_blocks = o.root_blocks();
  d.block_cells = o.block_cells;
  for (std::size_t a = 0; a < 3; ++a) {
    d.domain.cells[a] = d.root_blocks[a] * o.block_cells[a];
    d.domain.hi[a] = 1;
    d.domain.dx[a] = 1.0 / d.domain.cells[a];
  }
  d.send_faces = o.send_faces;
  d.max_comm_tasks = o.max_comm_tasks;
  d.separate_buffers = o.separate_buffers;
  d.corner_ghosts = o.stencil == 27;
  d.row_alignment = 1;  // small blocks: cache-line rows would add 60 % to 8^3 cells
  d.max_level = o.uniform_refine != 0 || o.moves_objects() ? o.num_refine : 0;
  d.adapt_every = o.moves_objects() ? o.refine_freq : 0;
  d.adapt_passes = o.refine_iterations_later();
  d.initial_levels_from_problem = false;
  d.adapt_at_end = true;
  d.repartition = o.lb_opt == 0 || o.uniform_refine != 0 ? tessera::Repartition::never
                  : o.lb_opt == 2                        ? tessera::Repartition::every_pass
                                                         : tessera::Repartition::every_step;
  d.repartition_imbalance = o.inbalance / 100.0;
  d.balance = o.balance;
  d.repartition_lines = (o.report_perf & 8) != 0;
  d.fixed_step = 1;
  d.max_cycles = o.num_tsteps;
  d.replay = false;
  d.progress_every = 0;
  d.state_totals = false;  // the report's checksum is miniAMR's (Solver::finished)
  // A checksum after stage k (all groups) when k % checksum_freq == 0.
  for (int k = 0; o.checksum_freq > 0 && k < o.stages_per_ts; k += o.checksum_freq)
    d.sum_after_stages.push_back((k + 1) * o.groups() - 1);
  d.output_every = o.plot_freq;
  const std::size_t slash = o.plot_prefix.rfind('/');
  d.output_dir = slash == std::string::npos ? "." : o.plot_prefix.substr(0, slash);
  d.output_prefix = slash == std::string::npos ? o.plot_prefix : o.plot_prefix.substr(slash + 1);
  d.stage_phase = "stencil";
  d.checkpoint = o.checkpoint;
  d.checkpoint_dataset = "cells";
  d.problem = std::move(problem);
  return d;
}

tessera::MemoryEstimate memory_needed(const Options& o, const tessera::AmrDriverOptions& d,
                                      const std::vector<tessera::FieldSpec>& fields, int ranks) {
  const auto roots = o.root_blocks();
  const double root_blocks = static_cast<double>(roots[0]) * roots[1] * roots[2];
  const double capacity =
      static_cast<double>(o.max_blocks) * o.rank_grid[0] * o.rank_grid[1] * o.rank_grid[2];
  // Without objects only uniform refinement refines.
  const bool refines = o.uniform_refine == 1 || o.num_objects > 0;
  const double reachable = root_blocks * std::pow(8.0, refines ? o.num_refine : 0);
  const double local = std::ceil(std::min(capacity, reachable) / ranks);
  tessera::MemoryEstimate need =
      tessera::amr_field_memory(d, fields, static_cast<long long>(local), ranks);
  constexpr double kHandleBytes = 256, kTaskBytes = 512;
  const double groups = o.groups();
  need.add("metadata", local * (2 * groups * kHandleBytes + groups * 4 * kTaskBytes + 256));
  return need;
}

void validate_options(tessera::Session& session, Options& o,
                      const std::vector<std::vector<double>>& raw_objects) {
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) session.fail(option, message);
  };
  const auto at_least = [&](int value, int low, const char* option) {
    require(value >= low, option, fmt::format("must be >= {}, got {}", low, value));
  };
  const char* const cells[3] = {"--nx", "--ny", "--nz"};
  const char* const init[3] = {"--init_x", "--init_y", "--init_z"};
  const char* const grid[3] = {"--npx", "--npy", "--npz"};
  for (std::size_t a = 0; a < 3; ++a) {
    require(o.block_cells[a] >= 2 && o.block_cells[a] % 2 == 0 && o.block_cells[a] <= 1024,
            cells[a], fmt::format("must be even and in 2..1024, got {}", o.block_cells[a]));
    require(o.init_blocks[a] >= 1 && o.init_blocks[a] <= 1024, init[a],
            fmt::format("must be in 1..1024, got {}", o.init_blocks[a]));
    require(o.rank_grid[a] >= 1 && o.rank_grid[a] <= 4096, grid[a],
            fmt::format("must be in 1..4096, got {}", o.rank_grid[a]));
  }
  const long init_blocks =
      static_cast<long>(o.init_blocks[0]) * o.init_blocks[1] * o.init_blocks[2];
  require(
      o.max_blocks >= init_blocks, "--max_blocks",
      fmt::format("must be at least init_x*init_y*init_z = {}, got {}", init_blocks, o.max_blocks));
  require(o.num_refine >= 0 && o.num_refine <= tessera::kMaxForestLevel, "--num_refine",
          fmt::format("must be in 0..{}, got {}", tessera::kMaxForestLevel, o.num_refine));
  at_least(o.block_change, 0, "--block_change");
  require(o.uniform_refine == 0 || o.uniform_refine == 1, "--uniform_refine",
          fmt::format("must be 0 or 1, got {}", o.uniform_refine));
  require(o.refine_freq >= 1, "--refine_freq",
          fmt::format("must be >= 1 (the reference divides by it), got {}", o.refine_freq));
  at_least(o.num_vars, 1, "--num_vars");
  at_least(o.comm_vars, 0, "--comm_vars");
  at_least(o.num_tsteps, 1, "--max-cycles");
  at_least(o.stages_per_ts, 1, "--stages_per_ts");
  at_least(o.checksum_freq, 0, "--checksum_freq");
  require(o.stencil == 7 || o.stencil == 27, "--stencil",
          fmt::format("must be 7 or 27, got {}", o.stencil));
  require(o.error_tol >= 0 && o.error_tol <= 300, "--error_tol",
          fmt::format("must be in 0..300, got {}", o.error_tol));
  at_least(o.max_comm_tasks, 0, "--max-comm-tasks");
  require(o.report_perf >= 0 && o.report_perf <= 15, "--report_perf",
          fmt::format("must be in 0..15, got {}", o.report_perf));
  require(o.lb_opt >= 0 && o.lb_opt <= 2, "--lb_opt",
          fmt::format("must be 0, 1 or 2, got {}", o.lb_opt));
  at_least(o.inbalance, 0, "--inbalance");
  at_least(o.plot_freq, 0, "--plot_freq");
  at_least(o.num_objects, 0, "--num_objects");
  require(static_cast<int>(raw_objects.size()) == o.num_objects, "--object",
          fmt::format("--num_objects is {} but {} --object option(s) were given", o.num_objects,
                      raw_objects.size()));
  o.objects.clear();
  for (std::size_t i = 0; i < raw_objects.size(); ++i) {
    const auto& v = raw_objects[i];
    const auto integral = [](double x) { return std::floor(x) == x; };
    require(v.size() == 14, "--object", fmt::format("object {} needs 14 values", i));
    require(integral(v[0]) && tessera::object_type_defined(static_cast<int>(v[0])), "--object",
            fmt::format("object {}: type must be 0..15 or 20..25, got {}", i, v[0]));
    require(integral(v[1]) && v[1] >= 0 && v[1] <= 2, "--object",
            fmt::format("object {}: bounce must be 0, 1 or 2, got {}", i, v[1]));
    tessera::RefineObject obj;
    obj.type = static_cast<int>(v[0]);
    obj.bounce = static_cast<int>(v[1]);
    for (std::size_t a = 0; a < 3; ++a) {
      obj.center[a] = v[2 + a];
      obj.move[a] = v[5 + a];
      obj.size[a] = v[8 + a];
      obj.growth[a] = v[11 + a];
    }
    o.objects.push_back(obj);
  }
  // As the reference: the 27-point stencil does not keep the sum across level jumps.
  if (o.stencil == 27 && o.num_refine > 0 && o.uniform_refine == 0)
    session.say("WARNING: 27 point stencil with non-uniform refinement: answers may diverge");
}

}  // namespace miniamr
