#pragma once
// The euler time loop as tasks. Per cycle (VL2):
//   ghost exchange of U (group 0);  per block: stage 1 (PCM fluxes, U* = U - dt/2 div F)
//   ghost exchange of U* (group 1); per block: stage 2 (PLM fluxes, U = U - dt div F(U*))
//   per block: scan for the next time step and bad cells; one task takes the minimum over
//   the blocks; an all-reduce (MIN, exact) gives the global step, which the main thread waits
//   for before it starts the next cycle.
// Under dataflow the cycle's tasks are recorded once and replayed every cycle (the mesh
// does not change), so small blocks do not pay for dependency analysis each cycle; tasks
// read the step from the driver when they run. --no-replay submits every cycle.
// A block's two states live in one BlockStore slot: variables 0-4 (U) and 5-9 (U*), two
// communication groups with their own handles.

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
  /// Submits stage 0 (predictor) or 1 (corrector) of a cycle with step *step_.
  void submit_stage(int stage);
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
  double step_ = 0;                            // the step the stage tasks read
  bool replay_ = false;
  std::unique_ptr<tessera::IterationGraph> cycle_graph_;
  tessera::Handle dt_handle_;
  double dt_reduce_[2] = {0, 0};  // [0] min step, [1] -1 if some rank found a bad cell

  int cycle_ = 0;
  double time_ = 0;
  Totals start_, end_;
  std::string history_;
  double loop_seconds_ = 0;
  double sod_l1_ = -1;
  double sedov_radius_ = -1, sedov_analytic_ = -1;
  bool failed_ = false;
  std::unique_ptr<EulerCheckpoint> checkpoint_;
};

}  // namespace euler
