#pragma once
// jacobi7's solver on one partition of the blocks: the fields u, v and f, the halo
// exchanges, and the tasks of the Jacobi iterations, the residual/error checks and the
// checkpoints. Its member functions live in one file per concern: solver.cpp (set-up and
// the iteration loop), solver_sweeps.cpp (the sweep and tile tasks and where they read
// their faces), solver_checks.cpp (checks and the checksum), solver_state.cpp (checkpoints,
// restart, continuing after a repartition).

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "face_sources.hpp"
#include "options.hpp"
#include "output_stores.hpp"
#include "plane_pipeline.hpp"
#include "poisson_problem.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/mesh/wavefront_order.hpp"
#include "tessera/session.hpp"

namespace tessera::jacobi7 {

/// Iterations the submission may run ahead of the sweeps (at least 4): what the solver
/// keeps in flight, and so what memory_needed counts.
int lookahead_iterations(const Options& o);

/// A residual/error check in flight: its exact sums and the handles their tasks reduce to.
struct Check {
  int iteration = -1;
  ExactSum residual;
  ExactSum error;
  Handle residual_handle;
  Handle error_handle;
};

/// A validated check: the RMS residual and error against the exact solution after
/// `iteration` iterations, summed exactly over all ranks.
struct CheckResult {
  int iteration;
  double residual;
  double error;
};

/// The checks as a JSON array of {iteration, residual, error}: the checkpoint's state and
/// the report's history.
nlohmann::json history_json(const std::vector<CheckResult>& history);

/// The Jacobi iterations on `mesh` (one partition of the blocks). Every member function is
/// called on the main thread, on every rank in the same order (they submit tasks and
/// collectives); none is callable from a task.
class Solver {
 public:
  /// Allocates the fields and handles; `writer` (may be null) receives the checkpoints.
  /// `session`, `options`, `mesh` and `writer` must outlive the solver.
  Solver(Session& session, const Options& options, const UniformMesh& mesh,
         CheckpointWriter* writer);

  /// Continues from a checkpoint: u and the check history as they were after its step.
  void restore(CheckpointReader& reader);

  /// Submits the tasks computing f (once per solver, before its first iteration).
  void setup();

  /// Submits iterations up to `stop` (exclusive) and waits for every task; the check in
  /// flight is validated, so another solver can continue from this one.
  void iterate_until(int stop);

  /// Residual and error of the final iterate (after all earlier checks were printed).
  CheckResult final_check();

  /// The exact sum of u over all cells of all ranks.
  double checksum();

  const std::vector<CheckResult>& history() const { return history_; }
  /// Continues from `previous` (a solver of the same problem on another partition of the
  /// blocks): submits the tasks moving its current u into this solver's u (BlockMigration)
  /// and takes its check history and iteration. Waits for them. Every rank, main thread,
  /// both solvers idle (after iterate_until).
  std::int64_t continue_from(Solver& previous, const TagSpace& tags);
  const HaloPlan& plan() const { return plan_; }

 private:
  // The exchange whose buffers hold `field`'s halo: one per field with fused packing.
  HaloExchange& exchange_of(const BlockField& field) {
    return &field == &v_ && halo_v_ ? *halo_v_ : halo_;
  }

  void exchange(BlockField& field);
  void find_fused_sections();
  void add_fused_faces(FaceSources& faces, HaloExchange& halo, LocalBlockIndex b) const;
  std::uint8_t sweep_variant(LocalBlockIndex b) const;

  static void add_exact(ExactSum& total, const ExactSum& part) { total.add(part); }

  std::size_t cells_per_block() const {
    return static_cast<std::size_t>(product(u_.layout().cells()));
  }

  void submit_checkpoint(int step);
  const double* boundary_zeros() const;

  const std::vector<FaceSources>& faces_of(const BlockField& field) const {
    return &field == &u_ ? u_faces_ : v_faces_;
  }

  void collect_stencil_reads(const BlockField& u, LocalBlockIndex b);
  const PlanePipeline& pipeline_for(LocalBlockIndex b, int depth);
  Priority block_priority(const MeshBlock& block, HaloShape shape) const;
  void submit_tiles(int it, int tile, int depth);
  void submit_sweeps(int it, int tile);
  void wait_for_sweeps(int tile);
  void submit_check(int it);
  void validate(Check& check);

  Session& session_;
  const Options& options_;
  const UniformMesh& mesh_;
  PoissonProblem problem_;
  HaloPlan plan_;
  HaloExchange halo_;                     // u's (and, without fused packing, v's) halo
  std::unique_ptr<HaloExchange> halo_v_;  // v's halo with fused packing
  std::uint8_t fused_;                    // fused_axes(options): faces read from the receive buffer
  std::uint8_t fused_packs_;  // of those, the faces the sweeps also pack (all but receive)
  std::vector<std::array<int, 6>> fused_send_;  // find_fused_sections
  std::vector<std::array<int, 6>> fused_receive_;
  bool u_swept_ = false;  // whether a sweep wrote the field (and its fused send sections)
  bool v_swept_ = false;
  BlockField u_;
  BlockField v_;
  BlockField f_;
  BlockField* u_now_ = &u_;
  BlockField* u_next_ = &v_;
  std::array<Check, 2> checks_;
  int checks_submitted_ = 0;
  std::vector<Handle> sweep_done_;
  std::vector<FaceSources> u_faces_;  // per block: where sweeps of u read beyond its faces
  std::vector<FaceSources> v_faces_;
  std::vector<double> u_columns_;  // FaceSources::own_column storage of u and of v
  std::vector<double> v_columns_;
  std::vector<double> boundary_;  // zeros: u's boundary values without ghost cells
  std::vector<Access> accesses_;  // scratch for the task being submitted
  std::vector<CheckResult> history_;
  int lookahead_;  // lookahead_iterations
  // Dataflow: sweeps run oldest iteration first (skeleton blocks first within one), not in
  // the order their halos arrive. In arrival order a rank late for one neighbour swept
  // that neighbour's blocks late too, and the delay spread from rank to rank: 64 simulated
  // ranks took 0.25 ms per iteration against bsp's 0.22 (docs/scaling-sim.md).
  bool order_by_iteration_;
  std::unique_ptr<WavefrontOrder> wavefront_;
  std::map<int, std::unique_ptr<PlanePipeline>> pipelines_;  // by depth and boundary faces
  OutputStores output_stores_;
  int first_iteration_ = 0;   // the restart's step, or 0
  CheckpointWriter* writer_;  // run()'s, when checkpoints are written
};

}  // namespace tessera::jacobi7
