#pragma once
// The euler time loop as tasks. Per cycle (VL2):
//   ghost exchange of U (group 0);  per block: stage 1 (PCM fluxes, U* = U - dt/2 div F)
//   ghost exchange of U* (group 1); per block: stage 2 (PLM fluxes, U = U - dt div F(U*))
//   per block: scan for the next time step and bad cells; one task takes the minimum over
//   the blocks; an all-reduce (MIN, exact) gives the global step, which the main thread waits
//   for before it starts the next cycle.
// Under dataflow the cycle's tasks are recorded once and replayed every cycle until the mesh
// changes (then recorded again), so small blocks do not pay for dependency analysis each
// cycle; tasks read the step from the driver when they run. --no-replay submits every cycle.
// With --max-level > 0, every --adapt-every cycles: ghost exchange of U, the refinement
// criterion per block (refinement.hpp), 2:1-balanced marks, split / merge (per-volume
// prolongation / restriction), repartition along the curve with block migration; each stage
// ends with the flux correction at coarse-fine faces (tessera::FluxCorrection). The
// initial state is refined max-level times, each new level set from the problem.
// A block's two states live in one BlockStore slot: variables 0-4 (U) and 5-9 (U*), two
// communication groups with their own handles.
// A block's stage is one task (--stage-tasks fused) or a task per piece (split; auto
// splits blocks of at least kSplitStageCells cells) on per-block buffers: primitives
// (reads U or U* and its face ghosts, writes W), one flux task per axis (reads W, writes
// that axis's term dt/dx dF and its two faces' fluxes; the axes run concurrently), the
// update (reads the terms, writes the new state and the flux register). The next
// exchange of a group waits only for the primitive task.

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "euler_checkpoint.hpp"
#include "hydro.hpp"
#include "options.hpp"
#include "problems.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/session.hpp"

namespace euler {

/// Global conserved totals (mass, momentum x y z, energy), each the correctly rounded
/// exact sum over cells of value * cell volume, and a position-weighted checksum.
struct Totals {
  std::array<double, kVars> conserved{};
  double checksum = 0;
};

class Driver {
 public:
  /// `restart`: the checkpoint to continue from (open_restart), or null.
  Driver(tessera::Session& session, const Options& options,
         std::unique_ptr<tessera::CheckpointReader> restart = nullptr);
  ~Driver();

  /// Runs to --t-end or --max-cycles; returns the exit code (1 after a bad cell).
  int run();
  nlohmann::json json() const;

 private:
  void initialize();
  void resize_block_arrays();
  void submit_initial_state();
  /// Collective: one adaptation of the mesh from the refinement criterion; false when no
  /// block changes (the mesh stays; the recorded cycle too unless families were gathered).
  bool adapt_mesh();
  /// Leaf cells over all ranks.
  double global_cells() const;
  /// Submits stage 0 (predictor) or 1 (corrector) of a cycle with step *step_.
  void submit_stage(int stage);
  /// Submits block b's stage as primitive, per-axis flux and update tasks.
  void submit_split_stage(std::int32_t b, int stage, const StageArgs& args,
                          const std::array<double, 3>& dx, tessera::Priority priority);
  /// Submits the scans, the minimum over blocks and the all-reduce into dt_reduce_.
  void submit_scan();
  /// After the all-reduce: the CFL step, or 0 after a fault (every faulty rank printed
  /// its cell).
  double finish_dt();
  double next_dt();
  /// Collective; every task must be done.
  Totals totals();
  void write_history_line(double dt);
  void final_figures();

  tessera::Session& session_;
  Options options_;
  Geometry geo_;
  std::unique_ptr<tessera::AmrMesh> mesh_;
  // Per local block, written by its tasks and read by the combining task.
  std::vector<CellFault> stage_faults_[2];
  std::vector<ScanResult> scans_;
  std::vector<tessera::Handle> scan_handles_;  // per local block
  // Split stages, per local block: the primitives W (kVars variables, BlockShape layout),
  // each axis's term (kVars x interior cells) and, with --max-level > 0, the fluxes of its
  // two faces (the flux register's part for that axis). Allocated once per block slot,
  // freed when the rank holds fewer blocks; empty with --stage-tasks fused.
  struct StageBuffers {
    std::vector<double> w;
    std::array<std::vector<double>, 3> term, faces;
  };
  std::vector<StageBuffers> stage_buffers_;
  std::vector<tessera::Handle> w_handles_;                    // per local block
  std::vector<std::array<tessera::Handle, 3>> term_handles_;  // per local block and axis
  std::vector<std::int8_t> wishes_;  // per local block: the criterion's wish
  double step_ = 0;                  // the step the stage tasks read
  bool replay_ = false;
  std::unique_ptr<tessera::IterationGraph> cycle_graph_;
  tessera::Handle dt_handle_;
  double dt_reduce_[2] = {0, 0};  // [0] min step, [1] -1 if some rank found a bad cell

  int cycle_ = 0;
  double time_ = 0;
  Totals start_, end_;
  std::string history_;
  double loop_seconds_ = 0;
  double zone_updates_ = 0;  // leaf cells times cycles, summed over the cycles
  int adaptations_ = 0;
  std::int64_t split_ = 0,
               merged_ = 0;  // blocks split / families merged (this rank; all at the end)
  bool unbalanced_ = false;
  std::vector<std::int64_t> level_counts_;  // blocks per level at the end, all ranks
  double sod_l1_ = -1;
  double sedov_radius_ = -1, sedov_analytic_ = -1;
  bool failed_ = false;
  bool pending_adaptation_ = false;  // restart: the checkpointed cycle's adaptation is due
  std::unique_ptr<EulerCheckpoint> checkpoint_;
};

}  // namespace euler
