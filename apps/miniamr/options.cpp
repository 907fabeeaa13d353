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
  // Declared as run options: the problem a checkpoint stores is problem_options'.
  tessera::OptionRegistry& registry = session.option_registry();
  CLI::App& cli = session.cli();
  const char* const axis_names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    registry.add(fmt::format("--n{}", axis_names[a]), o.block_cells[static_cast<std::size_t>(a)],
                 fmt::format("cells per block along {} (even, default 10)", axis_names[a]));
    registry.add(
        fmt::format("--init_{}", axis_names[a]), o.init_blocks[static_cast<std::size_t>(a)],
        fmt::format("initial blocks per rank-grid cell along {} (default 1)", axis_names[a]));
    registry.add(fmt::format("--np{}", axis_names[a]), o.rank_grid[static_cast<std::size_t>(a)],
                 fmt::format("miniAMR rank grid along {}: the mesh has np{} * init_{} level-0 "
                             "blocks along {} (default 1; any number of ranks may run it)",
                             axis_names[a], axis_names[a], axis_names[a], axis_names[a]));
  }
  registry.add("--max_blocks", o.max_blocks, "most blocks a rank may hold (default 500)");
  registry.add("--num_refine", o.num_refine, "refinement levels above level 0 (default 5)");
  registry.add("--block_change", o.block_change,
               "refinement iterations per refinement step after the first (default num_refine)");
  registry.add("--uniform_refine", o.uniform_refine,
               "1 = refine every block to num_refine once, no objects (default 0)");
  registry.add("--refine_freq", o.refine_freq, "timesteps between refinement steps (default 5)");
  registry.add("--num_vars", o.num_vars, "variables per cell (default 40)");
  registry.add("--comm_vars", o.comm_vars,
               "variables per communication group; 0 = all (default 0)");
  registry.add("--num_tsteps", o.num_tsteps, "timesteps (default 20)");
  registry.add("--stages_per_ts", o.stages_per_ts, "stages per timestep (default 20)");
  registry.add("--checksum_freq", o.checksum_freq,
               "checksum every this many stages; 0 = never (default 5)");
  registry.add("--stencil", o.stencil, "7 or 27 point stencil (default 7)");
  registry.add("--error_tol", o.error_tol, "checksum tolerance is 10^-error_tol (default 8)");
  registry.add("--num_objects", o.num_objects, "number of --object options (default 0)");
  cli.add_option("--object", raw_objects,
                 "type bounce cx cy cz mx my mz sx sy sz ix iy iz: an object that drives "
                 "refinement (repeat for each object)")
      ->expected(14)
      ->allow_extra_args(false);
  registry.add_flag("--send_faces", o.send_faces,
                    "one message per face instead of per neighbour rank");
  registry.add("--max_comm_tasks", o.max_comm_tasks,
               "with --send_faces: most messages per neighbour rank and axis; 0 = one per face");
  registry.add_flag("--separate_buffers", o.separate_buffers,
                    "a message buffer per axis (the axes' messages do not wait for each other)");
  registry.add_flag("--report_diffusion", o.report_diffusion, "print every checksum");
  registry.add("--report_perf", o.report_perf,
               "bits: 4 = end-of-run report, 8 = block counts after every refinement (default 12)");
  registry.add("--lb_opt", o.lb_opt,
               "load balancing: 0 none, 1 after each refinement step, 2 also after every "
               "iteration (default 1)");
  registry.add("--inbalance", o.inbalance,
               "percent of imbalance that triggers load balancing (default 0)");
  registry.add("--plot_freq", o.plot_freq,
               "write the block layout as VTK every this many timesteps; 0 = never (default 0)");
  registry.add("--plot_prefix", o.plot_prefix,
               "path prefix of the VTK files: <prefix>_ts<T>.vtk (default miniamr_mesh)");
  tessera::declare_checkpoint_options(registry, o.checkpoint, "timesteps");
}

namespace {

// The integer problem options by name (every one a plain int of Options).
std::vector<std::pair<const char*, int*>> integer_problem_options(Options& o) {
  return {{"--nx", &o.block_cells[0]},
          {"--ny", &o.block_cells[1]},
          {"--nz", &o.block_cells[2]},
          {"--init_x", &o.init_blocks[0]},
          {"--init_y", &o.init_blocks[1]},
          {"--init_z", &o.init_blocks[2]},
          {"--npx", &o.rank_grid[0]},
          {"--npy", &o.rank_grid[1]},
          {"--npz", &o.rank_grid[2]},
          {"--max_blocks", &o.max_blocks},
          {"--num_refine", &o.num_refine},
          {"--block_change", &o.block_change},
          {"--uniform_refine", &o.uniform_refine},
          {"--refine_freq", &o.refine_freq},
          {"--num_vars", &o.num_vars},
          {"--comm_vars", &o.comm_vars},
          {"--stages_per_ts", &o.stages_per_ts},
          {"--checksum_freq", &o.checksum_freq},
          {"--stencil", &o.stencil},
          {"--error_tol", &o.error_tol},
          {"--num_objects", &o.num_objects},
          {"--lb_opt", &o.lb_opt},
          {"--inbalance", &o.inbalance}};
}

}  // namespace

nlohmann::json problem_options(const Options& options,
                               const std::vector<std::vector<double>>& raw_objects) {
  nlohmann::json j = nlohmann::json::object();
  Options copy = options;
  for (const auto& [name, value] : integer_problem_options(copy)) j[name] = *value;
  j["--object"] = raw_objects;
  return j;
}

void restore_problem_options(const nlohmann::json& problem, Options& options,
                             std::vector<std::vector<double>>& raw_objects) {
  for (const auto& [name, value] : integer_problem_options(options))
    if (problem.contains(name)) *value = problem.at(name).get<int>();
  if (problem.contains("--object"))
    raw_objects = problem.at("--object").get<std::vector<std::vector<double>>>();
}

tessera::MemoryEstimate memory_needed(const Options& o, int ranks) {
  const auto roots = o.root_blocks();
  const double root_blocks = static_cast<double>(roots[0]) * roots[1] * roots[2];
  const double capacity =
      static_cast<double>(o.max_blocks) * o.rank_grid[0] * o.rank_grid[1] * o.rank_grid[2];
  // Without objects only uniform refinement refines.
  const bool refines = o.uniform_refine == 1 || o.num_objects > 0;
  const double reachable = root_blocks * std::pow(8.0, refines ? o.num_refine : 0);
  const double local = std::ceil(std::min(capacity, reachable) / ranks);
  double interior = 1, stored = 1, largest_face = 0;
  for (int a = 0; a < 3; ++a) {
    interior *= o.block_cells[a];
    stored *= o.block_cells[a] + 2;
  }
  for (int a = 0; a < 3; ++a) largest_face = std::max(largest_face, interior / o.block_cells[a]);
  constexpr double kDouble = sizeof(double), kHandleBytes = 256, kTaskBytes = 512;
  tessera::MemoryEstimate need;
  need.add("fields", o.num_vars * interior * kDouble * local);
  need.add("ghosts", o.num_vars * (stored - interior) * kDouble * local);
  if (ranks > 1) {
    const double remote_faces = std::min(6 * local, 12 * std::pow(local, 2.0 / 3.0));
    need.add("message buffers",
             2 * o.variables_per_group() * remote_faces * largest_face * kDouble);
  }
  const double groups = std::ceil(static_cast<double>(o.num_vars) / o.variables_per_group());
  need.add("metadata", local * (2 * groups * kHandleBytes + groups * 4 * kTaskBytes + 256));
  return need;
}

void validate_options(tessera::Session& session, Options& o,
                      const std::vector<std::vector<double>>& raw_objects) {
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) session.fail(option, message);
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
  require(o.block_change >= 0, "--block_change",
          fmt::format("must be >= 0, got {}", o.block_change));
  require(o.uniform_refine == 0 || o.uniform_refine == 1, "--uniform_refine",
          fmt::format("must be 0 or 1, got {}", o.uniform_refine));
  require(o.refine_freq >= 1, "--refine_freq",
          fmt::format("must be >= 1 (the reference divides by it), got {}", o.refine_freq));
  require(o.num_vars >= 1, "--num_vars", fmt::format("must be >= 1, got {}", o.num_vars));
  require(o.comm_vars >= 0, "--comm_vars", fmt::format("must be >= 0, got {}", o.comm_vars));
  require(o.num_tsteps >= 1, "--num_tsteps", fmt::format("must be >= 1, got {}", o.num_tsteps));
  require(o.stages_per_ts >= 1, "--stages_per_ts",
          fmt::format("must be >= 1, got {}", o.stages_per_ts));
  require(o.checksum_freq >= 0, "--checksum_freq",
          fmt::format("must be >= 0, got {}", o.checksum_freq));
  require(o.stencil == 7 || o.stencil == 27, "--stencil",
          fmt::format("must be 7 or 27, got {}", o.stencil));
  require(o.error_tol >= 0 && o.error_tol <= 300, "--error_tol",
          fmt::format("must be in 0..300, got {}", o.error_tol));
  require(o.max_comm_tasks >= 0, "--max_comm_tasks",
          fmt::format("must be >= 0, got {}", o.max_comm_tasks));
  require(o.report_perf >= 0 && o.report_perf <= 15, "--report_perf",
          fmt::format("must be in 0..15, got {}", o.report_perf));
  require(o.lb_opt >= 0 && o.lb_opt <= 2, "--lb_opt",
          fmt::format("must be 0, 1 or 2, got {}", o.lb_opt));
  require(o.inbalance >= 0, "--inbalance", fmt::format("must be >= 0, got {}", o.inbalance));
  require(o.plot_freq >= 0, "--plot_freq", fmt::format("must be >= 0, got {}", o.plot_freq));
  require(o.num_objects >= 0, "--num_objects", fmt::format("must be >= 0, got {}", o.num_objects));
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
