#include "options.hpp"
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cmath>

#include "tessera/driver/driver_options.hpp"

namespace euler {

void register_options(tessera::Session& session, Options& o) {
  constexpr auto kProblem = tessera::OptionRole::problem;
  tessera::OptionRegistry& registry = session.option_registry();
  registry.add("--dim", o.dim, "2 or 3 (default 2)", kProblem);
  registry
      .add("--cells", o.cells_raw, "level-0 cells of the whole domain NX NY [NZ] (default 128 8)",
           kProblem)
      ->expected(2, 3);
  registry
      .add("--block-cells", o.block_cells_raw,
           "cells per block NX NY [NZ], each even and >= 2 (default 16 8)", kProblem)
      ->expected(2, 3);
  registry.add("--max-level", o.max_level,
               "refinement levels above the base mesh; 0 = uniform (default 0)", kProblem);
  registry.add("--problem", o.problem_name, "sod | blast | sedov | kh | density-wave (default sod)",
               kProblem);
  registry.add("--axis", o.axis_name, "sod: direction of the shock tube x | y | z (default x)",
               kProblem);
  registry.add("--gamma", o.gamma,
               "ratio of specific heats > 1 (default: the problem's, 1.4 or 5/3)", kProblem);
  registry.add("--cfl", o.cfl, "Courant number in (0, 1) (default 0.3)", kProblem);
  registry.add("--t-end", o.t_end, "end time > 0 (default: the problem's)", kProblem);
  registry.add("--reconstruct", o.reconstruct_name,
               "plm | pcm | weno5z (WENO5-Z, radhydro's and HARD's; 3 ghost layers) (default plm)",
               kProblem);
  registry.add("--integrator", o.integrator_name,
               "vl2 (predictor-corrector, Athena++'s) | rk2 (Heun / SSP-RK2, HARD's) (default vl2)",
               kProblem);
  registry.add("--riemann", o.riemann_name,
               "hllc | hlle | hll (Davis speeds, radhydro's and HARD's) | hllc-pvrs (Toro's "
               "pressure-based speeds, AthenaPK's) (default hllc)",
               kProblem);
  registry.add("--boundary", o.boundary_name,
               "every domain face: problem (the problem's own) | periodic | outflow | "
               "reflecting (default problem)",
               kProblem);
  registry.add("--refine-above", o.refine_above,
               "refine where the relative density/pressure jump exceeds this (default 0.5)",
               kProblem);
  registry.add("--derefine-below", o.derefine_below, "coarsen where it is below this (default 0.1)",
               kProblem);
  registry.add("--adapt-every", o.driver.adapt_every, "cycles between adaptations (default 5)",
               kProblem);
  registry.add("--refine-criterion", o.criterion_name,
               "density-pressure (max relative gradient of density and pressure, default) | "
               "pressure (Athena++'s blast criterion: max |grad p| dx / p, face ghosts too)");
  registry.add("--derefine-count", o.driver.derefine_count,
               "a block merges only from the N-th consecutive check below --derefine-below "
               "(Athena++'s derefine_count; default 1)");
  registry.add("--max-blocks-per-rank", o.max_blocks_per_rank,
               "most blocks a rank may hold with --max-level > 0 (the memory check counts "
               "them); 0 = automatic (default)");
  registry.add("--lineout", o.lineout, "CSV file: primitives along a line at the final time");
  registry.add("--stage-tasks", o.stage_tasks_name,
               "a block's stage as one task (fused) or as primitive, per-axis flux and update "
               "tasks (split); same bits; auto: split for blocks of >= 4096 cells (default)");
  registry.add("--blast-radius", o.blast_radius, "blast: radius of the hot region (0.1)", kProblem);
  registry.add("--blast-pressure", o.blast_pressure, "blast: ambient pressure (0.1)", kProblem);
  registry.add("--blast-pressure-ratio", o.blast_pressure_ratio,
               "blast: inside / ambient pressure (100)", kProblem);
  registry.add("--sedov-energy", o.sedov_energy, "sedov: deposited energy (1)", kProblem);
  registry.add("--sedov-pressure", o.sedov_pressure, "sedov: ambient pressure (1e-5)", kProblem);
  registry.add("--kh-density-contrast", o.kh_density_contrast,
               "kh: density jump across the shear layers, drho/rho (1)", kProblem);
  registry.add("--scheme", o.scheme_name,
               "fv (finite volumes, VL2) | dg (ADER-DG, docs/apps/euler.md) (default fv)",
               kProblem);
  registry.add("--order", o.order, "dg: polynomial degree 1..9 (default 3)", kProblem);
  o.driver.output_prefix = "euler";
  tessera::declare_amr_driver_options(registry, o.driver);
}

namespace {

// The index of `name` among `choices`, or a failure naming the option and listing them.
int choose(tessera::Session& session, const char* option, const std::string& name,
           std::initializer_list<const char*> choices) {
  std::string allowed;
  int i = 0;
  for (const char* choice : choices) {
    if (name == choice) return i;
    allowed += std::string(i == 0 ? "" : i + 1 == std::ssize(choices) ? " or " : ", ") + choice;
    ++i;
  }
  session.fail(option, fmt::format("must be {}, got '{}'", allowed, name));
}

}  // namespace

void validate_options(tessera::Session& session, Options& o) {
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) session.fail(option, message);
  };
  // check(ok, option, "in (0, 1)", value): "must be in (0, 1), got <value>" unless ok.
  const auto check = [&](bool ok, const char* option, const char* allowed, double value) {
    require(ok && std::isfinite(value), option, fmt::format("must be {}, got {}", allowed, value));
  };
  check(o.dim == 2 || o.dim == 3, "--dim", "2 or 3", o.dim);
  require(std::ssize(o.cells_raw) == o.dim, "--cells",
          fmt::format("needs {} values with --dim {}, got {}", o.dim, o.dim, o.cells_raw.size()));
  require(
      std::ssize(o.block_cells_raw) == o.dim, "--block-cells",
      fmt::format("needs {} values with --dim {}, got {}", o.dim, o.dim, o.block_cells_raw.size()));
  for (std::size_t a = 0; a < static_cast<std::size_t>(o.dim); ++a) {
    const int b = o.block_cells[a] = o.block_cells_raw[a], c = o.cells[a] = o.cells_raw[a];
    check(b >= 2 && b % 2 == 0 && b <= 4096, "--block-cells", "even, >= 2 and <= 4096", b);
    require(c >= b && c % b == 0 && c / b <= 65536, "--cells",
            fmt::format("must be a positive multiple of --block-cells ({}) along each axis, got {}",
                        b, c));
  }
  choose(session, "--scheme", o.scheme_name, {"fv", "dg"});
  if (o.scheme_name == "dg") {
    for (const char* fv_only : {"--integrator", "--derefine-count"})
      require(!session.option_registry().given(fv_only), fv_only, "needs --scheme fv");
    return validate_dg_options(session, o);
  }
  require(!session.option_registry().given("--order"), "--order", "needs --scheme dg");
  o.problem = static_cast<Problem>(choose(session, "--problem", o.problem_name,
                                          {"sod", "blast", "sedov", "kh", "density-wave"}));
  require(o.problem != Problem::kh || o.dim == 2, "--problem", "kh is a 2-D problem: use --dim 2");
  o.axis = choose(session, "--axis", o.axis_name, {"x", "y", "z"});
  require(o.axis < o.dim, "--axis", "must be x or y with --dim 2, got 'z'");
  if (o.gamma == 0)
    o.gamma = o.problem == Problem::blast || o.problem == Problem::kh ? 5.0 / 3.0 : 1.4;
  check(o.gamma > 1 && o.gamma <= 10, "--gamma", "in (1, 10]", o.gamma);
  check(o.cfl > 0 && o.cfl < 1, "--cfl", "in (0, 1)", o.cfl);
  constexpr double kProblemTEnd[] = {0.25, 0.2, 0.05, 2.0, 0.5};  // sod, blast, sedov, kh, wave
  if (o.t_end == 0) o.t_end = kProblemTEnd[static_cast<int>(o.problem)];
  check(o.t_end > 0, "--t-end", "> 0", o.t_end);
  o.reconstruct = static_cast<Reconstruct>(
      choose(session, "--reconstruct", o.reconstruct_name, {"pcm", "plm", "weno5z"}));
  o.integrator =
      static_cast<Integrator>(choose(session, "--integrator", o.integrator_name, {"vl2", "rk2"}));
  o.riemann = static_cast<Riemann>(
      choose(session, "--riemann", o.riemann_name, {"hllc", "hlle", "hll", "hllc-pvrs"}));
  o.stage_tasks = static_cast<StageTasks>(
      choose(session, "--stage-tasks", o.stage_tasks_name, {"fused", "split", "auto"}));
  if (o.stage_tasks_name == "auto") {
    // Measured (docs/apps/euler.md): split costs 4-12 % more CPU time than fused on 8^3
    // blocks (task overhead, buffers out of cache) and none on 16^3 blocks.
    const long long block =
        static_cast<long long>(o.block_cells[0]) * o.block_cells[1] * o.block_cells[2];
    o.stage_tasks = block >= 4096 ? StageTasks::split : StageTasks::fused;
  }
  choose(session, "--boundary", o.boundary_name, {"problem", "periodic", "outflow", "reflecting"});
  check(o.max_level >= 0 && o.max_level <= 10, "--max-level", "in 0..10", o.max_level);
  // A block gives its neighbours all its ghost layers; across a level jump a fine block's
  // ghosts come from half as many coarse cells, so it needs twice as many.
  const int least = (o.max_level > 0 ? 2 : 1) * o.ghost();
  for (int a = 0; a < o.dim; ++a)
    require(o.block_cells[static_cast<std::size_t>(a)] >= least, "--block-cells",
            fmt::format("must be >= {} ({}{} ghost layers of --reconstruct {}), got {}", least,
                        o.max_level > 0 ? "with --max-level > 0: twice the " : "the ", o.ghost(),
                        o.reconstruct_name, o.block_cells[static_cast<std::size_t>(a)]));
  check(o.refine_above > 0, "--refine-above", "> 0", o.refine_above);
  check(o.derefine_below >= 0 && o.derefine_below < o.refine_above, "--derefine-below",
        "in [0, --refine-above)", o.derefine_below);
  check(o.driver.adapt_every >= 1, "--adapt-every", ">= 1", o.driver.adapt_every);
  o.criterion = static_cast<Criterion>(
      choose(session, "--refine-criterion", o.criterion_name, {"density-pressure", "pressure"}));
  check(o.driver.derefine_count >= 1, "--derefine-count", ">= 1", o.driver.derefine_count);
  // Neither is stored in a checkpoint (nor are the running counts): a restart would
  // continue with another criterion.
  const bool plain = o.criterion == Criterion::density_pressure && o.driver.derefine_count == 1;
  require(plain || (o.driver.checkpoint.every == 0 && !o.driver.checkpoint.restarting()),
          o.criterion == Criterion::density_pressure ? "--derefine-count" : "--refine-criterion",
          "is not stored in checkpoints: not allowed with --checkpoint-every or --restart");
  tessera::check_amr_driver_options(session, o.driver);
  check(o.max_blocks_per_rank >= 0, "--max-blocks-per-rank", ">= 0",
        static_cast<double>(o.max_blocks_per_rank));
  check(o.blast_radius > 0 && o.blast_radius < 0.5, "--blast-radius", "in (0, 0.5)",
        o.blast_radius);
  check(o.blast_pressure > 0, "--blast-pressure", "> 0", o.blast_pressure);
  check(o.blast_pressure_ratio > 0, "--blast-pressure-ratio", "> 0", o.blast_pressure_ratio);
  check(o.sedov_energy > 0, "--sedov-energy", "> 0", o.sedov_energy);
  check(o.sedov_pressure > 0, "--sedov-pressure", "> 0", o.sedov_pressure);
  check(o.kh_density_contrast > -1, "--kh-density-contrast", "> -1", o.kh_density_contrast);
}

}  // namespace euler
