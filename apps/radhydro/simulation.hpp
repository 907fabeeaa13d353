#pragma once
// radhydro's Simulation: the mesh, the state fields and the tasks of one run of HARD's
// radiation hydrodynamics on tessera's uniform block mesh (docs/apps/radhydro.md). Its
// members are defined by concept: the setup, the hydro stages and the cycle's reduction
// (simulation.cpp), the radiation solve (radiation_solve.cpp), the sums, errors and the
// lineout behind the report (simulation_diagnostics.cpp).
//
// A cycle: the dt from the previous cycle's reduction; ghost exchange of U, the domain
// boundaries, stage 1 (S = U + dt K(U)) per block; exchange of S, boundaries, stage 2
// (U = (U + S + dt K(S)) / 2) per block, which also scans the new U for the next dt; the
// max reduction over ranks. With radiation, the radiation step (diffusion solve, exchange)
// comes first (--coupling split) or forms the implicit stages of IMEX-SSP2(2,2,2) around the
// two explicit stages (--coupling imex, imex_cycle). Every kernel is a task on one block, so
// the cycle runs the same under bsp, forkjoin and dataflow and gives the same bits on any
// rank and thread count.

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "block_kernels.hpp"
#include "options.hpp"
#include "problems.hpp"
#include "radiation_kernels.hpp"
#include "radiation_multigrid.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/runtime/runtime.hpp"
#include "tessera/session.hpp"

namespace radhydro {

/// The largest signal speed and a fault flag, reduced by max over blocks and ranks.
using SpeedAndFault = std::array<double, 2>;

/// The mesh, the state and the tasks of one run. It owns the state fields (U, S and, with
/// radiation, E_r's iterates, the diffusion system, IMEX's R), the halo exchanges, the
/// multigrid solver and the runtime handles its tasks use. Main thread only: its members
/// submit tasks (which run anywhere) and the collective ones wait for them.
class Simulation {
 public:
  /// The mesh and the fields of the run `o` (validated) describes; `session` and `o` must
  /// outlive it. Throws std::invalid_argument if the mesh cannot hold the blocks or, with
  /// --rad-solver mg, no coarser level fits.
  Simulation(tessera::Session& session, const Options& o);

  const Scheme& scheme() const { return scheme_; }
  const tessera::UniformMesh& mesh() const { return mesh_; }
  tessera::BlockField& state() { return u_; }
  std::int64_t cells() const { return tessera::product(mesh_.cells()); }

  /// Sets the initial state (tasks; no wait).
  void submit_initial();

  /// Scans U for the signal speed (the first cycle's dt; a restart's). Collective; waits.
  /// Returns false if a cell is not physical (printed).
  bool scan(int cycle, double t);

  /// The next dt: cfl min dx / the largest signal speed, clipped to --max-dt and to
  /// t_end - t.
  double next_dt(double t) const;

  /// One cycle of dt; waits for its max reduction. Returns false if it produced a cell
  /// that is not physical or the radiation solve did not converge (printed).
  bool cycle(double dt, int cycle, double t);

  /// Totals and checksum of U over all ranks (collective; waits).
  struct Sums {
    std::array<double, 6> totals{};
    double checksum = 0;
  };
  Sums sums();

  /// The mean |error| over all cells of rho, the velocity along the axis and p against the
  /// problem's reference at t (collective; waits).
  std::optional<std::array<double, 3>> errors(double t);

  const Problem& problem() const { return problem_; }

  /// Radiation solver statistics: sweeps over all cycles, the most in one cycle, the last
  /// cycle's relative residual.
  std::int64_t rad_sweeps_total() const { return rad_sweeps_total_; }
  int rad_sweeps_max() const { return rad_sweeps_max_; }
  double rad_residual() const { return rad_residual_; }

  /// The mean over all cells of |T - T_ref| / T_ref and |E_r - E_ref| / (E_ref's peak)
  /// against the radiation reference at t, and the largest |E_r - E_ref| / (E_ref's peak)
  /// (collective; waits).
  std::optional<std::array<double, 3>> radiation_errors(double t);

  /// rad-shock's states reached: the means of {rho, u along the axis, T, E_r} over the
  /// cells in the first and the last kJumpFraction of the domain along the axis (far from
  /// the shock at the centre and its radiative precursor), upstream [0] and downstream [1]
  /// (collective; waits).
  std::optional<std::array<std::array<double, 4>, 2>> jump_states();

  /// Rank 0 writes the lineout CSV along x through the domain centre (collective; all
  /// tasks must be done).
  void write_lineout(const std::string& file);

 private:
  static Scheme make_scheme(const Options& o);
  static tessera::UniformMesh make_mesh(tessera::Session& session, const Options& o);

  // A block task's priority and tags; its work (simulated runs' modelled compute,
  // docs/scaling-sim.md) is the block's cells unless given.
  tessera::TaskAttributes attributes(tessera::LocalBlockIndex b, std::int64_t work = 0) const;

  // Work of a reduction task over one block (no priority): its cells.
  tessera::TaskAttributes block_work() const;

  // Ghosts of `field`: the exchange with the neighbour blocks, then the domain faces.
  void fill_ghosts(tessera::BlockField& field) { fill_ghosts(field, halo_, scheme_); }
  void fill_ghosts(tessera::BlockField& field, tessera::HaloExchange& halo, const Scheme& scheme);

  void submit_stages();

  // Submits the tasks `submit` submits; under replay records them into `graph` the first
  // time and replays the recording (the tasks read dt from dt_ when they run, so they are
  // the same tasks every cycle).
  template <class Submit>
  void run_stages(tessera::IterationGraph& graph, int cycle, Submit&& submit);

  // One IMEX-SSP2(2,2,2) cycle (docs/apps/radhydro.md, "Coupling"): the implicit stage
  // Y1 = U + g dt G(Y1) into S; its explicit stage (U becomes U + (dt K(Y1) + dt G(Y1)) / 2,
  // R the second implicit stage's input); Y2 = R + g dt G(Y2) into S; the second explicit
  // stage completes U. G is the radiation step (diffusion solve, then exchange) over g dt.
  bool imex_cycle(double dt, int cycle, double t);

  // IMEX's explicit stage `stage` from S (the implicit stage's solution) with dt_: stage 0
  // reads U^n (the implicit input) and writes U's partial sum and R; stage 1 reads R (its
  // implicit input) and completes U, with the signal-speed scan of U into the block's slot.
  void submit_imex_stage(int stage);

  // Stage `stage` with dt_ (0: dst = src + dt K(src); 1: dst = (base + src + dt K(src)) / 2,
  // and the signal-speed scan of dst into the block's slot).
  void submit_stage(tessera::BlockField& src, tessera::BlockField& dst, tessera::BlockField* base,
                    int stage);

  // The radiation step over dt from `src` into `dst` (may be src): per block, the
  // diffusion system from src; Jacobi sweeps (a fixed count, or until the relative
  // residual reaches --rad-tolerance) or V-cycles; src with the new E_r into dst and the
  // implicit exchange per cell. False if the solve did not converge (printed on rank 0);
  // exchange faults reach the cycle's fault flag (`first`: the cycle's first step, which
  // clears it).
  bool radiation_step(tessera::BlockField& src, tessera::BlockField& dst, double dt, int cycle,
                      double t, bool first);

  // Damped-Jacobi sweeps on the system rad-setup wrote, the solution in erad_.
  // Under replay, a fixed even number of sweeps runs as that many halves of a recorded pair
  // of sweeps (E_r -> erad2_ -> E_r, so erad_ keeps the iterate); otherwise sweeps are
  // submitted one by one (with --rad-sweeps 0 each followed by the residual's reduction,
  // which a recording cannot hold).
  bool jacobi_solve(int cycle, double t);

  // One damped-Jacobi sweep from `in` (its ghosts filled first) into `out`'s interior.
  void submit_sweep(tessera::BlockField& in, tessera::BlockField& out);

  // Records a solve's iterations and residual; false (printed on rank 0) if it missed its
  // tolerance.
  bool converged(double residual, int cycle, double t);

  // src's interior with E_r from the solve into dst, and the implicit exchange per cell
  // (faults reach the cycle's flag; a later step of the cycle keeps an earlier fault).
  void submit_store_and_exchange(tessera::BlockField& src, tessera::BlockField& dst, double dt,
                                 bool first);

  // The multigrid solve of the system rad-setup wrote: V-cycles (--rad-sweeps of them, or
  // until --rad-tolerance), then E_r and the exchange as in radiation_step.
  bool multigrid_solve(int cycle, double t);

  // ||(b - A E) / diag(A)|| / ||E|| of the current iterate over all ranks (collective;
  // waits).
  double rad_residual_check(const Scheme& one);

  // The max reduction over ranks, then the faults: false (and the faulting blocks
  // printed by their ranks) if any.
  bool finish_reduction(int cycle, double t);

  tessera::Session& session_;
  const Options& o_;
  Scheme scheme_;
  Problem problem_;
  tessera::UniformMesh mesh_;
  tessera::BlockField u_, s_;
  tessera::HaloPlan plan_;
  tessera::HaloExchange halo_;
  std::vector<std::array<std::optional<Boundary>, 6>> faces_;
  std::vector<Corner> corners_;
  // Per block: the faults of stage 1, of stage 2 (or the scan), of the radiation exchange.
  std::vector<CellFault> faults_;
  SpeedAndFault speed_{};
  tessera::Handle speed_handle_;
  // Per block: the largest signal speed its last stage 2 (or scan) found, behind a handle
  // each, so the stages need no reduction access (reductions cannot be recorded).
  std::vector<double> block_speed_;
  std::vector<tessera::Handle> speed_slots_;
  double dt_ = 0;
  bool replay_ = false;
  tessera::IterationGraph stages_;
  std::array<tessera::IterationGraph, 2> imex_stages_;
  Radiation rad_;
  // Radiation: the Jacobi iterates (swapped after each sweep), the system per block.
  std::unique_ptr<tessera::BlockField> erad_, erad2_, coef_;
  // IMEX: the second implicit stage's input (null under --coupling split).
  std::unique_ptr<tessera::BlockField> r_;
  // The scheme of the one-variable iterate (its boundary tasks keep a reference to it).
  Scheme one_;
  tessera::IterationGraph sweep_pair_;
  std::int64_t sweep_pairs_replayed_ = 0;
  std::unique_ptr<tessera::HaloExchange> rad_halo_;
  std::unique_ptr<RadiationMultigrid> mg_;
  std::array<tessera::ExactSum, 2> residual_sums_;
  tessera::Handle residual_handle_;
  std::int64_t rad_sweeps_total_ = 0;
  int rad_sweeps_max_ = 0;
  double rad_residual_ = 0;
};

/// The report's "totals_start"/"totals_end" object of `s` (with radiation, the energy is
/// the gas's plus the radiation's, and "radiation_energy" is added).
nlohmann::json totals_json(const Simulation::Sums& s, bool radiation);

}  // namespace radhydro
