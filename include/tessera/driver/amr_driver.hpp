#pragma once
// AmrDriver: the cycle loop of a solver on the adaptive mesh (layer `driver`). Per cycle:
//   for each stage: ghost exchange of its field; the solver's tasks per block; the flux
//     correction at coarse-fine faces (fields with fluxes);
//   per block the solver's time-step estimate; one task takes the minimum over the blocks,
//   an all-reduce (MIN, exact) the minimum over ranks, times the CFL factor;
//   every adapt_every cycles (max_level > 0): ghost exchange of the state, the refinement
//     criterion per block, 2:1-balanced marks, split / merge, repartition with migration;
//   --history row, progress line, plot file (HDF5 + XDMF), checkpoint when due.
// Under dataflow the cycle's tasks are recorded once and replayed every cycle until the
// mesh changes (replay = false submits every cycle). The initial state is refined
// max_level times, each new level set from the problem. A restart rebuilds the mesh from
// the checkpoint's leaves and continues bitwise. All members are main-thread only.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/amr/mesh.hpp"
#include "tessera/balance_options.hpp"
#include "tessera/driver/amr_solver.hpp"
#include "tessera/driver/derefinement_delay.hpp"
#include "tessera/driver/domain.hpp"
#include "tessera/driver/state_sums.hpp"
#include "tessera/io/checkpoint_options.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/runtime/cost_table.hpp"
#include "tessera/runtime/memory_estimate.hpp"
#include "tessera/session.hpp"

namespace tessera {

class CheckpointWriter;

/// When the driver repartitions the forest along the curve (with migration) in an
/// adaptation step.
enum class Repartition {
  on_change,   ///< after every step that changed the mesh
  every_step,  ///< after every step, when the imbalance exceeds repartition_imbalance
  every_pass,  ///< as every_step, and after every pass of a step
  never,
};

/// The run's shape and controls; the app fills it from its validated options.
struct AmrDriverOptions {
  /// The box, its dimension (2: quadtree forest, 3: octree) and the level-0 cell size.
  Domain domain;
  std::array<int, 3> root_blocks{1, 1, 1};
  std::array<int, 3> block_cells{1, 1, 1};  ///< 1 on a flat z
  std::array<bool, 3> periodic{};
  std::array<BoundaryKind, 6> boundary{};
  // Halo messages (AmrHaloOptions).
  bool send_faces = false;
  int max_comm_tasks = 0;
  bool separate_buffers = false;
  /// Edge and corner ghosts filled too (27-point stencils).
  bool corner_ghosts = false;
  /// Row alignment of the blocks' storage (BlockShape::row_alignment); 0: the default.
  /// Small blocks take 1: cache-line rows would add 60 % to 8^3 cells.
  int row_alignment = 0;
  int max_level = 0;
  /// Cycles between adaptation steps; 0: only the initial refinement.
  int adapt_every = 5;
  /// A block's merge wish from AmrSolver::refinement counts only from its N-th consecutive
  /// check (DerefinementDelay, Athena++'s derefine_count); 1: at once.
  int derefine_count = 1;
  /// Passes of marks and split / merge per adaptation step (miniAMR's block_change).
  int adapt_passes = 1;
  /// true: the initial state is refined in max_level steps, each new level set from the
  /// problem (submit_initial_state); false: in one step of max_level passes, the new blocks
  /// taking their parents' state (miniAMR).
  bool initial_levels_from_problem = true;
  /// false: no adaptation after the last cycle (a checkpoint written then runs it at the
  /// restart); true: the last cycle adapts when due, like any other.
  bool adapt_at_end = false;
  Repartition repartition = Repartition::on_change;
  /// every_step / every_pass: repartition only when the most and the fewest blocks on a
  /// rank differ by more than one and (most - fewest) x ranks / blocks > this fraction.
  double repartition_imbalance = 0;
  /// Print the mean, fewest and most blocks on a rank before and after each repartition.
  bool repartition_lines = false;
  /// --balance (tessera/balance_options.hpp): how a repartition cuts the curve; "cost"
  /// measures each rank's speed over the cycles since the last adaptation.
  BalanceOptions balance;
  /// Block slots a rank may use (the memory check counted them); exceeding it stops the run
  /// with an error naming slots_option and max_level_option. 0: no limit.
  long long block_slots = 0;
  std::string slots_option = "--max-blocks-per-rank";
  std::string max_level_option = "--max-level";
  double cfl = 1;
  double t_end = 0;
  int max_cycles = 0;  ///< 0: no limit
  /// > 0: every cycle advances the time by this step, with no time_step callbacks and no
  /// reduction; the run ends after max_cycles (t_end is not used).
  double fixed_step = 0;
  /// Stages of a cycle after which every state variable is summed (StateSums, exact,
  /// asynchronous) and handed to AmrSolver::check_sums one round later; the first round
  /// sums the initial state before it is refined. Empty: no sums. Needs replay = false.
  std::vector<int> sum_after_stages;
  /// The exact totals of the state at the start and the end (report keys checksum,
  /// conserved_hex, conserved_drift); a solver that reports its own figures may skip them.
  bool state_totals = true;
  bool replay = true;  ///< under dataflow
  /// Under dataflow, a submitted (not replayed) cycle is submitted before the previous
  /// cycle's step reduction completes when no adaptation, output, history row or checkpoint
  /// comes between them: its ghost exchange starts as each block's previous update ends.
  bool lookahead = true;
  std::string history;      ///< --history CSV path ("" = none)
  int progress_every = 10;  ///< 0: no progress lines
  /// Plot files (tessera/io/plot_file.hpp) of the checkpointed fields at cycle 0, every
  /// output_every cycles and at the end; 0: none. output_dir must have passed
  /// output_directory_problem.
  int output_every = 0;
  std::string output_dir = ".";
  std::string output_prefix = "plot";
  const char* stage_phase = "stage";  ///< report phase name of the stages (a string literal)
  CheckpointOptions checkpoint;
  /// "": one checkpoint dataset per state field, named as the field; else one dataset of
  /// this name holding every state field (a solver with many variable groups).
  std::string checkpoint_dataset;
  /// The options that define the problem, stored in checkpoints (tessera::open_restart).
  nlohmann::json problem = nlohmann::json::object();
};

/// Block slots one of `ranks` ranks may hold: its share of the root blocks on a uniform
/// mesh; adaptive: `max_blocks_per_rank` when > 0, else the worst case the run allows
/// (every root block refined to max_level, plus the parents alive while their children are
/// made: R 2^(dim L) (1 + 2^-dim) / ranks + 2^dim for R root blocks) capped at
/// max(4096, 8 x the rank's root blocks).
long long amr_block_slots_per_rank(const AmrDriverOptions& o, long long max_blocks_per_rank,
                                   int ranks);

/// One rank's bytes for the fields of `slots` blocks: every field's interior cells and
/// ghosts, the flux registers (adaptive, fields with fluxes) and the halo message buffers.
/// The solver adds its own buffers and per-block metadata.
MemoryEstimate amr_field_memory(const AmrDriverOptions& o, const std::vector<FieldSpec>& fields,
                                long long slots, int ranks);

/// Exact totals of the state fields (all ranks): per state variable the integral over the
/// domain (per_volume: the values times the cell volumes; per_cell: the values' sum), each
/// the correctly rounded exact sum, and a position-weighted checksum (it changes when a
/// value moves to another cell). The same on any number of ranks and threads.
struct StateTotals {
  std::vector<double> integral;
  double checksum = 0;
};

class AmrDriver {
 public:
  /// Collective. `restart`: the checkpoint to continue from (tessera::open_restart), or
  /// null. The solver must outlive the driver.
  AmrDriver(Session& session, AmrSolver& solver, AmrDriverOptions options,
            std::unique_ptr<CheckpointReader> restart = nullptr);
  ~AmrDriver();
  AmrDriver(const AmrDriver&) = delete;
  AmrDriver& operator=(const AmrDriver&) = delete;

  /// Runs to t_end or max_cycles; returns the exit code (1 after a fault, an unbalanced
  /// mesh or too many block slots). Collective.
  int run();
  /// The driver's report fields merged with the solver's.
  nlohmann::json json() const;

  Session& session() { return session_; }
  const AmrDriverOptions& options() const { return options_; }
  AmrMesh& mesh() { return *mesh_; }
  const AmrMesh& mesh() const { return *mesh_; }
  /// Local block i as the callbacks see it.
  SolverBlock block(std::int32_t i);
  int cycle() const { return cycle_; }
  double time() const { return time_; }
  /// A solver's check failed: the run stops after the current stage (no checkpoint, plot
  /// or history row of the cycle) and run() returns 1. Main thread, on every rank.
  void fail() { failed_ = true; }
  bool failed() const { return failed_; }
  /// Collective, blocking: the exact sum of every state variable over the leaves.
  std::vector<ExactSum> state_sums(SumKind kind);
  /// Blocks that changed rank (gathering families, repartitions), over all ranks, and the
  /// repartitions done (since the first start of the run: a restart carries them on).
  std::int64_t blocks_moved() const { return moved_; }
  /// Blocks split and families merged (all ranks after run(); this rank's before).
  std::int64_t blocks_split() const { return split_; }
  std::int64_t families_merged() const { return merged_; }
  int repartitions() const { return repartitions_; }
  /// Most blocks a rank held at any time (all ranks; valid after run()).
  std::int64_t max_blocks_per_rank() const { return max_blocks_; }
  /// Leaf cells over all ranks.
  double global_cells() const;
  double loop_seconds() const { return loop_seconds_; }
  /// Collective; every task must be done (barrier first).
  StateTotals totals();
  /// The totals at cycle 0 (also after a restart) and at the end of a successful run.
  const StateTotals& start_totals() const { return start_; }
  const StateTotals& end_totals() const { return end_; }
  double zone_cycles_per_second() const {
    return loop_seconds_ > 0 ? zone_updates_ / loop_seconds_ : 0.0;
  }

 private:
  void initialize();
  void blocks_changed();
  void submit_initial_state();
  bool adapt_mesh(bool initial = false);
  std::vector<std::int8_t> criterion_marks();
  void repartition_if_due(bool changed);
  // --balance cost: the weighted split of the blocks' measured costs, or nothing when
  // moving would not pay (--balance-gain); returns the blocks moved, or -1.
  std::int64_t rebalance_by_cost();
  std::int64_t gather_families();  // AmrMesh::gather_families, the costs following
  void submit_sums(int cycle);
  void check_sums(int upto);
  void submit_stage(int stage);
  void submit_scan();
  // A cycle's step from the CFL step dt at `time`: cut to end at t_end (last), except with a
  // fixed step. The one rule for the main thread and submit_step_from_scan's task.
  struct CycleStep {
    double step = 0;
    bool last = false;
  };
  CycleStep step_at(double dt, double time) const;
  // The next cycle's step, written by a task once the last scan's reduction completes.
  void submit_step_from_scan(double time);
  // Whether the cycle after this one may be submitted before this one's step reduction
  // completes (dataflow, nothing of the main thread's between the two cycles).
  bool may_submit_ahead(bool adapt_due) const;
  double finish_dt();
  double next_dt();
  void write_history_line(double dt);
  void write_output();
  void restore();
  void checkpoint_if_due(bool adapt_pending);
  bool more_cycles() const;

  Session& session_;
  AmrSolver& solver_;
  AmrDriverOptions options_;
  std::vector<FieldSpec> fields_;
  std::vector<StageSpec> stages_;
  int state_fields_ = 0;
  int state_vars_ = 0;  // variables of the state fields
  std::unique_ptr<AmrMesh> mesh_;
  std::unique_ptr<CostTable> costs_;      // --balance cost: per local block
  CostWindow cost_window_;                // what costs_ measured before the adaptation
  std::vector<double> block_costs_;       // per local block: its cost over that window
  std::vector<StepEstimate> estimates_;   // per local block
  std::vector<Handle> estimate_handles_;  // per local block slot
  std::vector<std::int8_t> wishes_;       // per local block
  std::unique_ptr<DerefinementDelay> derefinement_delay_;  // with derefine_count > 1
  double step_ = 0;
  bool replay_ = false;
  std::unique_ptr<IterationGraph> cycle_graph_;
  Handle dt_handle_;
  Handle step_handle_;            // step_ when a task writes it (submit_step_from_scan)
  CycleStep scan_step_;           // what submit_step_from_scan's task found
  bool scan_fault_ = false;       // and whether the reduction reported a fault
  double dt_reduce_[2] = {0, 0};  // [0] min step, [1] -1 if some rank found a fault
  int cycle_ = 0;
  double time_ = 0;
  std::string history_;
  StateTotals start_, end_;
  double loop_seconds_ = 0;
  double zone_updates_ = 0;
  int adaptations_ = 0;
  std::int64_t split_ = 0, merged_ = 0;
  std::int64_t skeleton_blocks_ = 0;  // all ranks, at the end of run()
  bool unbalanced_ = false;
  bool failed_ = false;
  std::vector<std::int64_t> level_counts_;
  std::unique_ptr<CheckpointReader> reader_;
  std::unique_ptr<CheckpointWriter> writer_;
  std::int64_t restarted_from_ = -1;
  double read_seconds_ = 0;
  bool pending_adaptation_ = false;
  double restore_seconds_ = 0;
  std::map<std::string, double> read_phases_;
  std::int64_t moved_ = 0;
  int repartitions_ = 0;
  std::int64_t max_blocks_ = 0, restored_max_blocks_ = 0;
  std::unique_ptr<StateSums> sums_;
  std::vector<int> sum_cycles_;  // per round: the cycle it sums
  int checked_rounds_ = 0;
};

}  // namespace tessera
