#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tessera/amr/forest.hpp"
#include "tessera/balance_options.hpp"
#include "tessera/io/checkpoint_options.hpp"
#include "tessera/option_registry.hpp"

namespace miniamr {

void register_options(tessera::Session& session, Options& o) {
  using tessera::at_least, tessera::in_range, tessera::one_of;
  tessera::OptionRegistry& registry = session.option_registry();
  const auto add = [&](const std::string& names, int& value, const std::string& help,
                       CLI::Validator allowed,
                       tessera::OptionRole role = tessera::OptionRole::problem) {
    registry.add(names, value, help, role)->check(std::move(allowed));
  };
  for (std::size_t a = 0; a < 3; ++a) {
    const char x = "xyz"[a];
    add(fmt::format("--n{}", x), o.block_cells[a], fmt::format("cells per block along {}", x),
        tessera::even() & in_range(2, 1024));
    add(fmt::format("--init_{}", x), o.init_blocks[a],
        fmt::format("initial blocks per rank-grid cell along {}", x), in_range(1, 1024));
    add(fmt::format("--np{}", x), o.rank_grid[a],
        fmt::format("miniAMR's rank grid: np{0} * init_{0} level-0 blocks along {0}", x),
        in_range(1, 4096));
  }
  // A name of tessera's shared vocabulary (docs/options.md) is the option's own, miniAMR's
  // its alias. validate_options checks --max_blocks; the reference divides by --refine_freq.
  constexpr auto kRun = tessera::OptionRole::run;
  add("--max_blocks", o.max_blocks, "most blocks a rank may hold", at_least(1));
  add("--num_refine", o.num_refine, "refinement levels above level 0",
      in_range(0, tessera::kMaxForestLevel));
  add("--block_change", o.block_change,
      "refinement iterations per refinement step after the first; 0 = num_refine", at_least(0));
  add("--uniform_refine", o.uniform_refine, "1 = refine every block to num_refine once, no objects",
      one_of({0, 1}));
  add("--refine_freq", o.refine_freq, "timesteps between refinement steps", at_least(1));
  add("--num_vars", o.num_vars, "variables per cell", at_least(1));
  add("--comm_vars", o.comm_vars, "variables per communication group; 0 = all", at_least(0));
  o.run.max_cycles = 20;
  add("--max-cycles,--num_tsteps", o.run.max_cycles, "timesteps", at_least(1), kRun);
  add("--stages_per_ts", o.stages_per_ts, "stages per timestep", at_least(1));
  add("--checksum_freq", o.checksum_freq, "checksum every this many stages; 0 = never",
      at_least(0));
  add("--stencil", o.stencil, "7 or 27 point stencil", one_of({7, 27}));
  add("--error_tol", o.error_tol, "checksum tolerance is 10^-error_tol", in_range(0, 300));
  add("--num_objects", o.num_objects, "number of --object options", at_least(0));
  registry
      .add("--object", o.raw_objects,
           "type bounce cx cy cz mx my mz sx sy sz ix iy iz: an object that drives refinement "
           "(repeat for each object)",
           tessera::OptionRole::problem)
      ->expected(14)
      ->allow_extra_args(false);
  registry.add_flag("--send-faces,--send_faces", o.run.send_faces,
                    "one message per face instead of per neighbour rank");
  add("--max-comm-tasks,--max_comm_tasks", o.run.max_comm_tasks,
      "with --send-faces: most messages per neighbour rank and axis; 0 = one per face", at_least(0),
      kRun);
  registry.add_flag("--separate-buffers,--separate_buffers", o.run.separate_buffers,
                    "a message buffer per axis (the axes' messages do not wait for each other)");
  registry.add_flag("--report_diffusion", o.report_diffusion, "print every checksum");
  add("--report_perf", o.report_perf,
      "bits: 4 = end-of-run report, 8 = block counts after every refinement", in_range(0, 15),
      kRun);
  add("--lb_opt", o.lb_opt,
      "load balancing: 0 none, 1 after each refinement step, 2 also after every iteration",
      one_of({0, 1, 2}));
  add("--inbalance", o.inbalance, "percent of imbalance that triggers load balancing", at_least(0));
  add("--plot_freq", o.run.output_every,
      "plot files (HDF5 + XDMF, docs/output.md) at timestep 0, every this many timesteps and "
      "at the end; 0 = never",
      at_least(0), kRun);
  registry.add("--plot_prefix", o.plot_prefix,
               "path prefix of the plot files: <prefix>_<T>.h5 and .xmf, the series <prefix>.xdmf");
  tessera::declare_checkpoint_options(registry, o.run.checkpoint, "timesteps");
  tessera::declare_balance_options(registry, o.run.balance, false);
}

tessera::AmrDriverOptions driver_options(const Options& o, nlohmann::json problem) {
  tessera::AmrDriverOptions d = o.run;
  d.root_blocks = o.root_blocks();
  d.block_cells = o.block_cells;
  for (std::size_t a = 0; a < 3; ++a) {
    d.domain.cells[a] = d.root_blocks[a] * o.block_cells[a];
    d.domain.hi[a] = 1;
    d.domain.dx[a] = 1.0 / d.domain.cells[a];
  }
  d.corner_ghosts = o.stencil == 27;
  d.row_alignment = 1;  // small blocks: cache-line rows would add 60 % to 8^3 cells
  d.initial_levels_from_problem = false;
  d.adapt_at_end = true;
  d.fixed_step = 1;
  d.replay = false;
  d.progress_every = 0;
  d.state_totals = false;  // the report's checksum is miniAMR's (Solver::finished)
  d.stage_phase = "stencil";
  d.checkpoint_dataset = "cells";
  d.max_level = o.uniform_refine != 0 || o.moves_objects() ? o.num_refine : 0;
  d.adapt_every = o.moves_objects() ? o.refine_freq : 0;
  d.adapt_passes = o.refine_iterations_later();
  d.repartition = o.lb_opt == 0 || o.uniform_refine != 0 ? tessera::Repartition::never
                  : o.lb_opt == 2                        ? tessera::Repartition::every_pass
                                                         : tessera::Repartition::every_step;
  d.repartition_imbalance = o.inbalance / 100.0;
  d.repartition_lines = (o.report_perf & 8) != 0;
  // A checksum after stage k (all groups) when k % checksum_freq == 0.
  for (int k = 0; o.checksum_freq > 0 && k < o.stages_per_ts; k += o.checksum_freq)
    d.sum_after_stages.push_back((k + 1) * o.groups() - 1);
  const std::size_t slash = o.plot_prefix.rfind('/');
  d.output_dir = slash == std::string::npos ? "." : o.plot_prefix.substr(0, slash);
  d.output_prefix = slash == std::string::npos ? o.plot_prefix : o.plot_prefix.substr(slash + 1);
  d.problem = std::move(problem);
  return d;
}

tessera::MemoryEstimate memory_needed(const Options& o, const tessera::AmrDriverOptions& d,
                                      const std::vector<tessera::FieldSpec>& fields, int ranks) {
  const auto roots = o.root_blocks();
  const double capacity =
      static_cast<double>(o.max_blocks) * o.rank_grid[0] * o.rank_grid[1] * o.rank_grid[2];
  // Without objects only uniform refinement refines.
  const int levels = o.uniform_refine == 1 || o.num_objects > 0 ? o.num_refine : 0;
  const double reachable =
      static_cast<double>(roots[0]) * roots[1] * roots[2] * std::pow(8.0, levels);
  const double local = std::ceil(std::min(capacity, reachable) / ranks), groups = o.groups();
  tessera::MemoryEstimate need = amr_field_memory(d, fields, static_cast<long long>(local), ranks);
  constexpr double kHandleBytes = 256, kTaskBytes = 512;  // per handle and task: rough
  need.add("metadata", local * (2 * groups * kHandleBytes + groups * 4 * kTaskBytes + 256));
  return need;
}

void validate_options(tessera::Session& session, Options& o) {
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) session.fail(option, message);
  };
  const long init_blocks =
      static_cast<long>(o.init_blocks[0]) * o.init_blocks[1] * o.init_blocks[2];
  require(
      o.max_blocks >= init_blocks, "--max_blocks",
      fmt::format("must be at least init_x*init_y*init_z = {}, got {}", init_blocks, o.max_blocks));
  require(static_cast<int>(o.raw_objects.size()) == o.num_objects, "--object",
          fmt::format("--num_objects is {} but {} --object option(s) were given", o.num_objects,
                      o.raw_objects.size()));
  o.objects.clear();
  for (std::size_t i = 0; i < o.raw_objects.size(); ++i) {
    const auto& v = o.raw_objects[i];
    const auto integral = [](double x) { return std::floor(x) == x; };
    require(v.size() == 14, "--object", fmt::format("object {} needs 14 values", i));
    require(integral(v[0]) && tessera::object_type_defined(static_cast<int>(v[0])), "--object",
            fmt::format("object {}: type must be 0..15 or 20..25, got {}", i, v[0]));
    require(integral(v[1]) && v[1] >= 0 && v[1] <= 2, "--object",
            fmt::format("object {}: bounce must be 0, 1 or 2, got {}", i, v[1]));
    tessera::RefineObject obj{static_cast<int>(v[0]), static_cast<int>(v[1])};
    std::size_t k = 2;  // centre, move, size, growth: 3 values each
    for (auto* field : {&obj.center, &obj.move, &obj.size, &obj.growth})
      for (double& x : *field) x = v[k++];
    o.objects.push_back(obj);
  }
  // As the reference: the 27-point stencil does not keep the sum across level jumps.
  if (o.stencil == 27 && o.num_refine > 0 && o.uniform_refine == 0)
    session.say("WARNING: 27 point stencil with non-uniform refinement: answers may diverge");
}

}  // namespace miniamr
