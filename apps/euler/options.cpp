#include "options.hpp"
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cmath>

#include "tessera/io/plot_file.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"

namespace euler {

void register_options(tessera::Session& session, Options& o) {
  // Declared as run options: the problem a checkpoint stores is problem_options'.
  tessera::OptionRegistry& registry = session.option_registry();
  registry.add("--dim", o.dim, "2 or 3 (default 2)");
  registry
      .add("--cells", o.cells_raw, "level-0 cells of the whole domain NX NY [NZ] (default 128 8)")
      ->expected(2, 3);
  registry
      .add("--block-cells", o.block_cells_raw,
           "cells per block NX NY [NZ], each even and >= 2 (default 16 8)")
      ->expected(2, 3);
  registry.add("--max-level", o.max_level,
               "refinement levels above the base mesh; 0 = uniform (default 0)");
  registry.add("--problem", o.problem_name,
               "sod | blast | sedov | kh | density-wave (default sod)");
  registry.add("--axis", o.axis_name, "sod: direction of the shock tube x | y | z (default x)");
  registry.add("--gamma", o.gamma,
               "ratio of specific heats > 1 (default: the problem's, 1.4 or 5/3)");
  registry.add("--cfl", o.cfl, "Courant number in (0, 1) (default 0.3)");
  registry.add("--t-end", o.t_end, "end time > 0 (default: the problem's)");
  registry.add("--max-cycles", o.max_cycles, "stop after this many cycles; 0 = no limit");
  registry.add("--reconstruct", o.reconstruct_name, "plm | pcm (default plm)");
  registry.add("--riemann", o.riemann_name,
               "hllc | hlle | hll (Davis speeds, radhydro's and HARD's) (default hllc)");
  registry.add("--boundary", o.boundary_name,
               "every domain face: problem (the problem's own) | periodic | outflow | "
               "reflecting (default problem)");
  registry.add("--refine-above", o.refine_above,
               "refine where the relative density/pressure jump exceeds this (default 0.5)");
  registry.add("--derefine-below", o.derefine_below,
               "coarsen where it is below this (default 0.1)");
  registry.add("--adapt-every", o.adapt_every, "cycles between adaptations (default 5)");
  registry.add("--refine-criterion", o.criterion_name,
               "density-pressure (max relative gradient of density and pressure, default) | "
               "pressure (Athena++'s blast criterion: max |grad p| dx / p, face ghosts too)");
  registry.add("--derefine-count", o.derefine_count,
               "a block merges only from the N-th consecutive check below --derefine-below "
               "(Athena++'s derefine_count; default 1)");
  registry.add("--max-blocks-per-rank", o.max_blocks_per_rank,
               "most blocks a rank may hold with --max-level > 0 (the memory check counts "
               "them); 0 = automatic (default)");
  registry.add("--history", o.history,
               "CSV file: per cycle time, dt, mass, momentum, energy, blocks");
  registry.add("--lineout", o.lineout, "CSV file: primitives along a line at the final time");
  registry.add("--output-every,--plot-every", o.output_every,
               "write a plot file (HDF5 + XDMF, docs/output.md) at cycle 0, every this many "
               "cycles and at the end; 0 = never (default)");
  registry.add("--output-dir", o.output_dir,
               "directory of the plot files, created if missing (default .)");
  registry.add("--output-prefix", o.output_prefix,
               "plot file names: <prefix>_<cycle>.h5 and .xmf, series <prefix>.xdmf "
               "(default euler)");
  registry.add("--progress-every", o.progress_every, "cycles between progress lines (default 10)");
  registry.add_flag("--send-faces", o.send_faces,
                    "one message per block face instead of one per neighbour rank and axis");
  registry.add("--max-comm-tasks", o.max_comm_tasks,
               "with --send-faces: most messages per neighbour rank and axis; 0 = one per face");
  registry.add_flag("--separate-buffers", o.separate_buffers,
                    "a message buffer per axis (the axes' messages do not wait for each other)");
  registry.add_flag(
      "!--no-replay", o.replay,
      "submit every cycle's tasks instead of replaying the recorded cycle (dataflow)");
  registry.add("--stage-tasks", o.stage_tasks_name,
               "a block's stage as one task (fused) or as primitive, per-axis flux and update "
               "tasks (split); same bits; auto: split for blocks of >= 4096 cells (default)");
  registry.add("--blast-radius", o.blast_radius, "blast: radius of the hot region (0.1)");
  registry.add("--blast-pressure", o.blast_pressure, "blast: ambient pressure (0.1)");
  registry.add("--blast-pressure-ratio", o.blast_pressure_ratio,
               "blast: inside / ambient pressure (100)");
  registry.add("--sedov-energy", o.sedov_energy, "sedov: deposited energy (1)");
  registry.add("--sedov-pressure", o.sedov_pressure, "sedov: ambient pressure (1e-5)");
  registry.add("--kh-density-contrast", o.kh_density_contrast,
               "kh: density jump across the shear layers, drho/rho (1)");
  registry.add("--scheme", o.scheme_name,
               "fv (finite volumes, VL2) | dg (ADER-DG, docs/apps/euler.md) (default fv)");
  registry.add("--order", o.order, "dg: polynomial degree 1..9 (default 3)");
  tessera::declare_checkpoint_options(registry, o.checkpoint, "cycles");
  tessera::declare_balance_options(registry, o.balance, false);
}

void validate_options(tessera::Session& session, Options& o) {
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) session.fail(option, message);
  };
  require(o.dim == 2 || o.dim == 3, "--dim", fmt::format("must be 2 or 3, got {}", o.dim));
  require(static_cast<int>(o.cells_raw.size()) == o.dim, "--cells",
          fmt::format("needs {} values with --dim {}, got {}", o.dim, o.dim, o.cells_raw.size()));
  require(
      static_cast<int>(o.block_cells_raw.size()) == o.dim, "--block-cells",
      fmt::format("needs {} values with --dim {}, got {}", o.dim, o.dim, o.block_cells_raw.size()));
  for (int a = 0; a < o.dim; ++a) {
    const int b = o.block_cells_raw[static_cast<std::size_t>(a)];
    const int c = o.cells_raw[static_cast<std::size_t>(a)];
    require(b >= kGhost && b % 2 == 0 && b <= 4096, "--block-cells",
            fmt::format("must be even, >= {} (the ghost width) and <= 4096, got {}", kGhost, b));
    require(c >= b && c % b == 0 && c / b <= 65536, "--cells",
            fmt::format("must be a positive multiple of --block-cells ({}) along each axis, got {}",
                        b, c));
    o.cells[static_cast<std::size_t>(a)] = c;
    o.block_cells[static_cast<std::size_t>(a)] = b;
  }
  require(o.scheme_name == "fv" || o.scheme_name == "dg", "--scheme",
          fmt::format("must be fv or dg, got '{}'", o.scheme_name));
  if (o.scheme_name == "dg") return validate_dg_options(session, o);
  require(!session.option_registry().given("--order"), "--order", "needs --scheme dg");
  if (o.problem_name == "sod") {
    o.problem = Problem::sod;
  } else if (o.problem_name == "blast") {
    o.problem = Problem::blast;
  } else if (o.problem_name == "sedov") {
    o.problem = Problem::sedov;
  } else if (o.problem_name == "kh") {
    o.problem = Problem::kh;
  } else if (o.problem_name == "density-wave") {
    o.problem = Problem::density_wave;
  } else {
    session.fail("--problem", fmt::format("must be sod, blast, sedov, kh or density-wave, got '{}'",
                                          o.problem_name));
  }
  require(o.problem != Problem::kh || o.dim == 2, "--problem", "kh is a 2-D problem: use --dim 2");
  require(o.axis_name == "x" || o.axis_name == "y" || (o.axis_name == "z" && o.dim == 3), "--axis",
          fmt::format("must be {}, got '{}'", o.dim == 3 ? "x, y or z" : "x or y (--dim 2)",
                      o.axis_name));
  o.axis = o.axis_name[0] - 'x';
  if (o.gamma == 0)
    o.gamma = o.problem == Problem::blast || o.problem == Problem::kh ? 5.0 / 3.0 : 1.4;
  require(std::isfinite(o.gamma) && o.gamma > 1 && o.gamma <= 10, "--gamma",
          fmt::format("must be in (1, 10], got {}", o.gamma));
  require(std::isfinite(o.cfl) && o.cfl > 0 && o.cfl < 1, "--cfl",
          fmt::format("must be in (0, 1), got {}", o.cfl));
  if (o.t_end == 0) {
    switch (o.problem) {
      case Problem::sod:
        o.t_end = 0.25;
        break;
      case Problem::blast:
        o.t_end = 0.2;
        break;
      case Problem::sedov:
        o.t_end = 0.05;
        break;
      case Problem::kh:
        o.t_end = 2.0;
        break;
      case Problem::density_wave:
        o.t_end = 0.5;
        break;
    }
  }
  require(std::isfinite(o.t_end) && o.t_end > 0, "--t-end",
          fmt::format("must be > 0, got {}", o.t_end));
  require(o.max_cycles >= 0, "--max-cycles", fmt::format("must be >= 0, got {}", o.max_cycles));
  if (o.reconstruct_name == "plm") {
    o.reconstruct = Reconstruct::plm;
  } else if (o.reconstruct_name == "pcm") {
    o.reconstruct = Reconstruct::pcm;
  } else {
    session.fail("--reconstruct", fmt::format("must be plm or pcm, got '{}'", o.reconstruct_name));
  }
  if (o.riemann_name == "hllc") {
    o.riemann = Riemann::hllc;
  } else if (o.riemann_name == "hlle") {
    o.riemann = Riemann::hlle;
  } else if (o.riemann_name == "hll") {
    o.riemann = Riemann::hll;
  } else {
    session.fail("--riemann", fmt::format("must be hllc, hlle or hll, got '{}'", o.riemann_name));
  }
  if (o.stage_tasks_name == "auto") {
    // Measured (docs/apps/euler.md): split costs 4-12 % more CPU time than fused on 8^3
    // blocks (task overhead, buffers out of cache) and none on 16^3 blocks.
    const long long block =
        static_cast<long long>(o.block_cells[0]) * o.block_cells[1] * o.block_cells[2];
    o.stage_tasks = block >= kSplitStageCells ? StageTasks::split : StageTasks::fused;
  } else if (o.stage_tasks_name == "split") {
    o.stage_tasks = StageTasks::split;
  } else if (o.stage_tasks_name == "fused") {
    o.stage_tasks = StageTasks::fused;
  } else {
    session.fail("--stage-tasks",
                 fmt::format("must be auto, split or fused, got '{}'", o.stage_tasks_name));
  }
  require(
      o.boundary_name == "problem" || o.boundary_name == "periodic" ||
          o.boundary_name == "outflow" || o.boundary_name == "reflecting",
      "--boundary",
      fmt::format("must be problem, periodic, outflow or reflecting, got '{}'", o.boundary_name));
  require(o.max_level >= 0 && o.max_level <= 10, "--max-level",
          fmt::format("must be in 0..10, got {}", o.max_level));
  if (o.max_level > 0)
    for (int a = 0; a < o.dim; ++a)
      require(o.block_cells[static_cast<std::size_t>(a)] >= 2 * kGhost, "--block-cells",
              fmt::format("must be >= {} (twice the ghost width) with --max-level > 0, got {}",
                          2 * kGhost, o.block_cells[static_cast<std::size_t>(a)]));
  require(std::isfinite(o.refine_above) && o.refine_above > 0, "--refine-above",
          fmt::format("must be > 0, got {}", o.refine_above));
  require(
      std::isfinite(o.derefine_below) && o.derefine_below >= 0 && o.derefine_below < o.refine_above,
      "--derefine-below", fmt::format("must be in [0, --refine-above), got {}", o.derefine_below));
  require(o.adapt_every >= 1, "--adapt-every", fmt::format("must be >= 1, got {}", o.adapt_every));
  if (o.criterion_name == "density-pressure") {
    o.criterion = Criterion::density_pressure;
  } else if (o.criterion_name == "pressure") {
    o.criterion = Criterion::pressure;
  } else {
    session.fail("--refine-criterion",
                 fmt::format("must be density-pressure or pressure, got '{}'", o.criterion_name));
  }
  require(o.derefine_count >= 1, "--derefine-count",
          fmt::format("must be >= 1, got {}", o.derefine_count));
  // Neither is stored in a checkpoint (nor are the running counts): a restart would
  // continue with another criterion.
  const bool plain = o.criterion == Criterion::density_pressure && o.derefine_count == 1;
  require(plain || (o.checkpoint.every == 0 && !o.checkpoint.restarting()),
          o.criterion == Criterion::density_pressure ? "--derefine-count" : "--refine-criterion",
          "is not stored in checkpoints: not allowed with --checkpoint-every or --restart");
  require(o.max_blocks_per_rank >= 0, "--max-blocks-per-rank",
          fmt::format("must be >= 0, got {}", o.max_blocks_per_rank));
  require(o.output_every >= 0, "--output-every",
          fmt::format("must be >= 0, got {}", o.output_every));
  require(!o.output_prefix.empty() && o.output_prefix.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-.") == std::string::npos,
          "--output-prefix",
          fmt::format("must be letters, digits, _ - or ., got '{}'", o.output_prefix));
  if (o.output_every > 0)
    if (const std::string why = tessera::output_directory_problem(o.output_dir); !why.empty())
      session.fail("--output-dir", why);
  require(o.max_comm_tasks >= 0, "--max-comm-tasks",
          fmt::format("must be >= 0, got {}", o.max_comm_tasks));
  require(o.progress_every >= 1, "--progress-every",
          fmt::format("must be >= 1, got {}", o.progress_every));
  require(o.blast_radius > 0 && o.blast_radius < 0.5, "--blast-radius",
          fmt::format("must be in (0, 0.5), got {}", o.blast_radius));
  require(o.blast_pressure > 0 && std::isfinite(o.blast_pressure), "--blast-pressure",
          fmt::format("must be > 0, got {}", o.blast_pressure));
  require(o.blast_pressure_ratio > 0 && std::isfinite(o.blast_pressure_ratio),
          "--blast-pressure-ratio", fmt::format("must be > 0, got {}", o.blast_pressure_ratio));
  require(o.sedov_energy > 0 && std::isfinite(o.sedov_energy), "--sedov-energy",
          fmt::format("must be > 0, got {}", o.sedov_energy));
  require(o.sedov_pressure > 0 && std::isfinite(o.sedov_pressure), "--sedov-pressure",
          fmt::format("must be > 0, got {}", o.sedov_pressure));
  require(o.kh_density_contrast > -1 && std::isfinite(o.kh_density_contrast),
          "--kh-density-contrast", fmt::format("must be > -1, got {}", o.kh_density_contrast));
}

}  // namespace euler
