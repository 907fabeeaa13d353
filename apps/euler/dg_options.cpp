// Validation of euler --scheme dg's options (validate_options hands over after the mesh
// options): one line naming the option and the allowed values, on every rank, before any work.
#include <fmt/format.h>

#include <cmath>

#include "dg/nodal_basis.hpp"
#include "options.hpp"
#include "tessera/option_registry.hpp"

namespace euler {

namespace {

// The modal indicator's default refinement threshold (docs/apps/euler.md, "Adaptive DG"):
// an element with 30 % of its density variation in its highest modes does not resolve it.
constexpr double kDgRefineAbove = 0.3;

}  // namespace

void validate_dg_options(tessera::Session& session, Options& o) {
  const auto require = [&](bool ok, const char* option, const std::string& message) {
    if (!ok) session.fail(option, message);
  };
  const tessera::OptionRegistry& given = session.option_registry();
  require(o.order >= dg::kMinOrder && o.order <= dg::kMaxOrder, "--order",
          fmt::format("must be in {}..{} with --scheme dg, got {}", dg::kMinOrder, dg::kMaxOrder,
                      o.order));
  // The DG defaults of options whose fv default differs. A restart took the checkpoint's
  // values, which are the resolved ones (problem_options is stored after validation).
  const bool fresh = !o.driver.checkpoint.restarting();
  if (fresh && !given.given("--problem")) o.problem_name = "density-wave";
  require(o.problem_name == "density-wave" || o.problem_name == "isentropic-vortex" ||
              o.problem_name == "smooth-blobs" || o.problem_name == "uniform",
          "--problem",
          fmt::format("must be density-wave, isentropic-vortex, smooth-blobs or uniform with "
                      "--scheme dg "
                      "(no limiter: shocks are out of its scope), got '{}'",
                      o.problem_name));
  require(o.problem_name != "isentropic-vortex" || o.dim == 2, "--problem",
          "isentropic-vortex is a 2-D problem: use --dim 2");
  require(o.problem_name != "smooth-blobs" || o.dim == 3, "--problem",
          "smooth-blobs is a 3-D problem: use --dim 3");
  if (o.gamma == 0) o.gamma = 1.4;
  require(o.gamma == 1.4 || o.problem_name != "isentropic-vortex", "--gamma",
          fmt::format("must be 1.4 for isentropic-vortex (its exact solution), got {}", o.gamma));
  require(std::isfinite(o.gamma) && o.gamma > 1 && o.gamma <= 10, "--gamma",
          fmt::format("must be in (1, 10], got {}", o.gamma));
  require(std::isfinite(o.cfl) && o.cfl > 0 && o.cfl < 1, "--cfl",
          fmt::format("must be in (0, 1), got {}", o.cfl));
  if (o.t_end == 0) o.t_end = o.problem_name == "smooth-blobs" ? 0.1 : 0.5;
  require(std::isfinite(o.t_end) && o.t_end > 0, "--t-end",
          fmt::format("must be > 0, got {}", o.t_end));
  require(o.driver.max_cycles >= 0, "--max-cycles",
          fmt::format("must be >= 0, got {}", o.driver.max_cycles));
  if (fresh && !given.given("--riemann")) o.riemann_name = "rusanov";
  require(o.riemann_name == "rusanov" || o.riemann_name == "hllc", "--riemann",
          fmt::format("must be rusanov or hllc with --scheme dg, got '{}'", o.riemann_name));
  require(
      o.boundary_name == "problem" || o.boundary_name == "periodic" ||
          o.boundary_name == "outflow" || o.boundary_name == "reflecting",
      "--boundary",
      fmt::format("must be problem, periodic, outflow or reflecting, got '{}'", o.boundary_name));
  require(o.max_level >= 0 && o.max_level <= 10, "--max-level",
          fmt::format("must be in 0..10, got {}", o.max_level));
  // The DG criteria (dg_solver.hpp) and the modal indicator's thresholds. The criterion is
  // not stored in checkpoints: a restart runs the default, so centre refuses checkpoints.
  if (!given.given("--refine-criterion")) o.criterion_name = "modal";
  require(o.criterion_name == "modal" || o.criterion_name == "centre", "--refine-criterion",
          fmt::format("must be modal or centre with --scheme dg, got '{}'", o.criterion_name));
  require(o.criterion_name == "modal" ||
              (o.driver.checkpoint.every == 0 && !o.driver.checkpoint.restarting()),
          "--refine-criterion",
          "centre is not stored in checkpoints: not allowed with --checkpoint-every or --restart");
  // The indicator of smooth data falls by ~4^p per level: coarsening below refine-above /
  // 4^(p+1) keeps a merged parent below refine-above (no split-merge flicker).
  if (fresh && !given.given("--refine-above")) o.refine_above = kDgRefineAbove;
  if (fresh && !given.given("--derefine-below"))
    o.derefine_below = std::ldexp(o.refine_above, -2 * (o.order + 1));
  require(std::isfinite(o.refine_above) && o.refine_above > 0, "--refine-above",
          fmt::format("must be > 0, got {}", o.refine_above));
  require(
      std::isfinite(o.derefine_below) && o.derefine_below >= 0 && o.derefine_below < o.refine_above,
      "--derefine-below", fmt::format("must be in [0, --refine-above), got {}", o.derefine_below));
  require(!given.given("--derefine-count"), "--derefine-count", "needs --scheme fv");
  require(o.driver.output_every == 0, "--output-every",
          "must be 0 with --scheme dg (no plot files of DG polynomials)");
  require(o.lineout.empty(), "--lineout", "is not available with --scheme dg");
  // The driver's history rows sum every component as a cell value: for DG nodal values,
  // which are not the conserved integrals (the report's totals_start / totals_end are).
  require(o.driver.history.empty(), "--history", "is not available with --scheme dg");
  for (const char* fv_only : {"--reconstruct", "--stage-tasks", "--axis"})
    require(!given.given(fv_only), fv_only, "needs --scheme fv");
  require(o.driver.progress_every >= 1, "--progress-every",
          fmt::format("must be >= 1, got {}", o.driver.progress_every));
  require(o.driver.max_comm_tasks >= 0, "--max-comm-tasks",
          fmt::format("must be >= 0, got {}", o.driver.max_comm_tasks));
  require(o.max_blocks_per_rank >= 0, "--max-blocks-per-rank",
          fmt::format("must be >= 0, got {}", o.max_blocks_per_rank));
  require(o.driver.adapt_every >= 1, "--adapt-every",
          fmt::format("must be >= 1, got {}", o.driver.adapt_every));
}

}  // namespace euler
