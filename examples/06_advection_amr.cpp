// 06_advection_amr: a smooth blob carried across the periodic unit square by a constant
// wind, on an adaptive mesh whose refinement follows the blob. The program declares one
// field and writes four callbacks (initial state, refinement wish, time step, the stage's
// task); tessera's AmrDriver does the rest: ghosts across level jumps, flux correction,
// 2:1-balanced adaptation and repartition, the exact time-step minimum, replay, history,
// plot files (--output-every), checkpoints and restart (--checkpoint-every, --restart).
#include <CLI/CLI.hpp>  // Session::cli() is a CLI11 parser: add options with its API
#include <cmath>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

namespace {

constexpr double kWind[2] = {1.0, 0.5};    // the velocity; the blob moves by kWind * t
constexpr double kStart[2] = {0.3, 0.35};  // the blob's centre at t = 0
constexpr double kWidth = 0.06;            // its Gaussian radius

// The solver: first-order upwind (donor cell) finite volumes for dq/dt + div(w q) = 0.
class Advection : public AmrSolver {
 public:
  explicit Advection(Runtime& runtime) : runtime_(runtime) {}

  // q is a density (per-volume: children get a limited-linear prolongation, a parent the
  // mean) whose fluxes are corrected where a coarse block meets finer ones, so the total
  // is conserved; the upwind stencil reads one ghost layer.
  std::vector<FieldSpec> fields() const override {
    return {{.name = "q", .components = 1, .amount = Amount::per_volume, .fluxes = true}};
  }
  // One stage per cycle: exchange q's ghosts, then update q.
  std::vector<StageSpec> stages() const override { return {{.exchange = 0, .update = 0}}; }

  void submit_initial_state(AmrDriver& driver, const SolverBlock& b) override {
    const Domain domain = driver.options().domain;
    runtime_.submit("init", {write(driver.mesh().interior(b.index, 0))}, [b, domain] {
      // g: the cell's global index at the block's level; c: its place in the block's data.
      for_each_cell(b, [&](const std::array<std::int64_t, 3>& g, std::size_t c) {
        const double dx = domain.centre(0, g[0], b.place->level) - kStart[0];
        const double dy = domain.centre(1, g[1], b.place->level) - kStart[1];
        b.data[c] = std::exp(-(dx * dx + dy * dy) / (kWidth * kWidth));
      });
    });
  }

  // Refine where q changes by more than 0.05 between neighbouring cells, coarsen below
  // 0.01: the fine cells travel with the blob.
  Refinement refinement(const SolverBlock& b) const override {
    // Cells are stored x fastest: the y neighbour is a row (stride_y) away.
    const std::size_t sx = 1, sy = static_cast<std::size_t>(b.shape->layout().stride_y());
    double jump = 0;
    for_cells(b, [&](int, int, std::size_t c) {
      jump = std::max({jump, std::fabs(b.data[c + sx] - b.data[c - sx]) / 2,
                       std::fabs(b.data[c + sy] - b.data[c - sy]) / 2});
    });
    return jump > 0.05 ? Refinement::refine : jump < 0.01 ? Refinement::coarsen : Refinement::keep;
  }

  // Donor cell is stable for dt (|wx| / dx + |wy| / dy) <= 1; the driver takes the minimum
  // over all blocks and ranks and multiplies by the CFL factor.
  StepEstimate time_step(const SolverBlock& b) const override {
    return {1.0 / (std::fabs(kWind[0]) / b.dx[0] + std::fabs(kWind[1]) / b.dx[1])};
  }

  // One task per block: reads q with its ghosts, writes q and the fluxes through the
  // block's faces (for the driver's flux correction). The step is read when the task runs:
  // a replayed cycle reuses the task with the next step.
  void submit_stage(AmrDriver& driver, const StageContext& ctx) override {
    const AmrMesh& mesh = driver.mesh();
    const std::int32_t i = ctx.block.index;
    std::vector<Access> acc{read(mesh.ghosts(i, 0, 0)), read(mesh.ghosts(i, 0, 1)),
                            readwrite(mesh.interior(i, 0))};
    if (ctx.flux != nullptr) acc.push_back(write(ctx.flux_handle));
    runtime_.submit(
        "upwind", std::span<const Access>(acc), [ctx] { upwind(ctx); }, ctx.priority);
  }

 private:
  // Calls f(i, j, c) for every interior cell (i, j) of a 2-D block, c its index in data.
  template <class F>
  static void for_cells(const SolverBlock& b, F&& f) {
    const BlockShape& s = *b.shape;
    const BlockLayout l = s.layout();
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j) f(i, j, static_cast<std::size_t>(l.index(0, i, j, 0)));
  }
  // The upwind flux through a face with wind w between cells holding ql (low) and qh.
  static double flux(double w, double ql, double qh) { return w > 0 ? w * ql : w * qh; }

  static void upwind(const StageContext& ctx) {
    const SolverBlock& b = ctx.block;
    const BlockShape& s = *b.shape;
    const std::size_t stride[2] = {1, static_cast<std::size_t>(s.layout().stride_y())};
    const double step = *ctx.step;
    std::vector<double> next(s.interior_cells());
    std::size_t n = 0;
    for_cells(b, [&](int i, int j, std::size_t c) {
      double q = b.data[c];
      for (int a = 0; a < 2; ++a) {
        const double lo = flux(kWind[a], b.data[c - stride[a]], b.data[c]);
        const double hi = flux(kWind[a], b.data[c], b.data[c + stride[a]]);
        q -= step / b.dx[a] * (hi - lo);
        // Faces on the block's boundary go to the flux register: face 2a (low), 2a + 1.
        const int along = a == 0 ? j : i, at = a == 0 ? i : j;
        if (ctx.flux != nullptr && at == 0)
          ctx.flux[ctx.flux_layout->index(2 * a, 0, along, 0)] = lo;
        if (ctx.flux != nullptr && at == s.cells[a] - 1)
          ctx.flux[ctx.flux_layout->index(2 * a + 1, 0, along, 0)] = hi;
      }
      next[n++] = q;
    });
    n = 0;
    for_cells(b, [&](int, int, std::size_t c) { b.data[c] = next[n++]; });
  }

  Runtime& runtime_;
};

}  // namespace

int run(int argc, char** argv) {
  Session session(argc, argv, "06_advection_amr", "advection of a blob on an adaptive mesh");
  // The run's shape and controls: the driver's options, some set from the command line.
  AmrDriverOptions o;
  int cells = 32, block_cells = 8;
  o.max_level = 2, o.adapt_every = 4, o.t_end = 0.3, o.cfl = 0.8;
  CLI::App& cli = session.cli();
  cli.add_option("--cells", cells, "level-0 cells per axis")->check(CLI::Range(2, 4096));
  cli.add_option("--block-cells", block_cells, "cells per block side")->check(CLI::Range(2, 256));
  cli.add_option("--max-level", o.max_level, "refinement levels")->check(CLI::Range(0, 6));
  cli.add_option("--t-end", o.t_end, "end time")->check(CLI::Range(0.0, 10.0));
  cli.add_option("--output-every", o.output_every, "cycles between plot files (HDF5 + XDMF)")
      ->check(CLI::NonNegativeNumber);
  cli.add_option("--output-dir", o.output_dir, "directory of the plot files");
  cli.add_option("--history", o.history, "CSV of the total per cycle");
  o.checkpoint.add_to(cli, "cycles");
  session.start();
  if (cells % block_cells != 0) session.fail("--block-cells", "must divide --cells");
  if (o.output_every > 0)
    if (const std::string why = output_directory_problem(o.output_dir); !why.empty())
      session.fail("--output-dir", why);
  // A restart continues the run a checkpoint holds; its problem options must agree.
  const nlohmann::json problem = {{"--cells", cells},
                                  {"--block-cells", block_cells},
                                  {"--max-level", o.max_level},
                                  {"--t-end", o.t_end}};
  auto restart = open_restart(session, o.checkpoint, "06_advection_amr", problem,
                              [&](const nlohmann::json& stored) {
                                stored.at("--cells").get_to(cells);
                                stored.at("--block-cells").get_to(block_cells);
                                stored.at("--max-level").get_to(o.max_level);
                                stored.at("--t-end").get_to(o.t_end);
                              });
  o.problem = problem;
  // The unit square, periodic, cut into root blocks of block_cells^2 cells (flat z: 2-D).
  o.domain = {.dim = 2, .cells = {cells, cells, 1}, .lo = {0, 0, 0}, .hi = {1, 1, 1}};
  o.domain.dx = {1.0 / cells, 1.0 / cells, 1.0};
  o.root_blocks = {cells / block_cells, cells / block_cells, 1};
  o.block_cells = {block_cells, block_cells, 1};
  o.periodic = {true, true, true};
  o.block_slots = amr_block_slots_per_rank(o, 0, session.size());
  o.output_prefix = "06_advection_amr";
  Advection solver(session.runtime());
  AmrDriver driver(session, solver, o, std::move(restart));
  if (const int code = driver.run(); code != 0) return code;
  // Where the blob is: its centre of mass, exact sums over every leaf cell of every rank.
  std::array<ExactSum, 3> moments;  // q, q x, q y, each times the cell's volume
  for_each_cell(driver.mesh(), 0,
                [&](int level, const std::array<std::int64_t, 3>& g, const double* q, std::size_t) {
                  const double volume = std::ldexp(1.0, -2 * level);
                  moments[0].add(*q * volume);
                  for (int a = 0; a < 2; ++a)
                    moments[a + 1].add(*q * volume * o.domain.centre(a, g[a], level));
                });
  const Handle h = session.runtime().create_handle("moments");
  for (ExactSum& m : moments) session.comm().iallreduce_sum(h, &m);
  session.runtime().wait_for(h);
  const StateTotals& start = driver.start_totals();
  const StateTotals& end = driver.end_totals();
  session.say("06_advection_amr: {} cycles to t = {:.6g}, {} blocks; total {:.17g} -> {:.17g}",
              driver.cycle(), driver.time(), driver.mesh().forest().global_count(),
              start.integral[0], end.integral[0]);
  session.say("06_advection_amr: centre of mass {:.6f} {:.6f}, exact {:.6f} {:.6f}",
              moments[1].value() / moments[0].value(), moments[2].value() / moments[0].value(),
              kStart[0] + kWind[0] * driver.time(), kStart[1] + kWind[1] * driver.time());
  session.finish(driver.json());
  return 0;
}

int main(int argc, char** argv) {
  return run_guarded([&] { return run(argc, argv); });
}
