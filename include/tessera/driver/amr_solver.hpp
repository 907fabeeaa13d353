#pragma once
// AmrSolver: what a solver on the adaptive-mesh driver writes (layer `driver`). The solver
// declares its fields and stages and fills in callbacks; the AmrDriver (amr_driver.hpp)
// calls them and does the rest: ghost exchange, flux correction, marking with 2:1
// balance, split / merge, repartition, the time-step reduction, replay, history,
// outputs, checkpoints and restart. docs/driver.md states when each callback runs.

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/flux_correction.hpp"
#include "tessera/amr/forest.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/driver/field_spec.hpp"
#include "tessera/driver/solver_block.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {

class AmrDriver;

/// What a stage's tasks of one block get (AmrSolver::submit_stage).
struct StageContext {
  SolverBlock block;
  int stage = 0;  ///< index into AmrSolver::stages()
  /// The step of the cycle; read it inside tasks, when they run (a replayed cycle keeps the
  /// pointer and the driver changes the value). A task reading it declares
  /// read(step_handle): under dataflow the driver submits a cycle before the previous
  /// cycle's step reduction completes, and a task writes the step when it does. A zero step
  /// changes nothing, so tasks return at once when *step == 0; the driver sets it to cancel
  /// a cycle submitted ahead of a fault (its blocks keep the faulty state to be named).
  const double* step = nullptr;
  Handle step_handle;
  /// The block's flux register (FluxRegister layout `flux_layout`) when the updated field
  /// has fluxes and the block has a face with a level jump, else null; a task writing it
  /// declares write(flux_handle).
  double* flux = nullptr;
  const FluxRegister* flux_layout = nullptr;
  Handle flux_handle;
  Priority priority = Priority::normal;  ///< skeleton blocks first
};

/// A stage of the cycle: the driver exchanges the ghosts of field `exchange`, calls
/// submit_stage for every block, then (for a field with fluxes on an adaptive mesh)
/// corrects field `update` at coarse-fine faces with coefficient dt_factor * step / dx.
struct StageSpec {
  int exchange = 0;
  int update = 0;
  double dt_factor = 1;
};

/// A block's wish from the refinement criterion.
enum class Refinement : std::int8_t { coarsen = -1, keep = 0, refine = 1 };

/// A block's stable step (before the CFL factor), or a fault (the run stops after the
/// reduction and describe_fault names the cell).
struct StepEstimate {
  double dt = 0;
  bool fault = false;
};

class AmrSolver {
 public:
  virtual ~AmrSolver() = default;

  /// The fields, state before scratch; asked once, when the driver is built.
  virtual std::vector<FieldSpec> fields() const = 0;
  /// The stages of one cycle, in order; asked once.
  virtual std::vector<StageSpec> stages() const = 0;

  /// Main thread, after every mesh change (and once at the start): the rank now holds
  /// `local_blocks` blocks. Resize per-block arrays here.
  virtual void blocks_changed(AmrDriver& /*driver*/, std::int32_t /*local_blocks*/) {}

  /// Main thread: submit the tasks setting block `b`'s state (write its interior) from the
  /// problem. Called for every block at the start and after every initial refinement
  /// level; never at a restart.
  virtual void submit_initial_state(AmrDriver& driver, const SolverBlock& b) = 0;

  /// Runs inside a task, on any thread, concurrently for different blocks: the refinement
  /// wish of block `b`, whose state fields and their face ghosts are filled. It may read
  /// the block and write nothing but its own per-block slot.
  virtual Refinement refinement(const SolverBlock& b) const = 0;

  /// Main thread, collective, once per pass of an adaptation step (no task in flight, every
  /// family of sibling leaves on one rank): one mark per local block (+1 split, -1 merge
  /// with its siblings, 0 keep) that keeps 2:1 face balance (tessera::refinement_marks and
  /// balanced_marks make them so). None (the default): refinement() per block, then
  /// balanced_marks. A solver whose rules are not a per-block wish (miniAMR's objects)
  /// overrides it.
  virtual std::optional<std::vector<std::int8_t>> marks(AmrDriver& /*driver*/) {
    return std::nullopt;
  }
  /// Main thread, collective, after the passes of every adaptation step (the initial one
  /// too), before its last repartition: e.g. record the mesh or stop the run
  /// (AmrDriver::fail).
  virtual void adapted(AmrDriver& /*driver*/) {}

  /// Runs inside a task, on any thread, concurrently for different blocks, after the
  /// cycle's last stage: block `b`'s stable step (the driver takes the exact minimum over
  /// all blocks and ranks, times the CFL factor). It reads the state's interior.
  virtual StepEstimate time_step(const SolverBlock& b) const = 0;

  /// Main thread, once per block and stage (under replay: once per recording): submit the
  /// stage's tasks of one block. Read *ctx.step inside the tasks.
  virtual void submit_stage(AmrDriver& driver, const StageContext& ctx) = 0;

  /// Main thread, after the tasks of stage `stage` of every block (and its flux correction)
  /// were submitted; not under replay. AmrDriver::cycle() counts the cycles done before
  /// this one.
  virtual void after_stage(AmrDriver& /*driver*/, int /*stage*/) {}
  /// Main thread, in round order, one round after the driver submitted them
  /// (AmrDriverOptions::sum_after_stages) and at the latest before an adaptation, a
  /// checkpoint or the end: the exact sum of every state variable over the leaves after a
  /// listed stage of cycle `cycle` (numbered from 1; 0: the initial state, before it is
  /// refined). It may stop the run (AmrDriver::fail).
  virtual void check_sums(AmrDriver& /*driver*/, int /*cycle*/,
                          std::span<const ExactSum> /*sums*/) {}

  /// Main thread, every rank, when some block reported a fault: print the first faulty
  /// cell of this rank, if any (one line on stderr). The run then stops with exit code 1.
  virtual void describe_fault(AmrDriver& /*driver*/) {}

  /// Names of the state variables in --history rows (comma-separated; default: the field
  /// name and the component index).
  virtual std::string history_columns() const;

  /// Collective, every task done, before the first cycle. `restarted`: the state came from
  /// a checkpoint, restore_state has run.
  virtual void started(AmrDriver& /*driver*/, bool /*restarted*/) {}
  /// What the solver saves in a checkpoint besides the fields (called when a checkpoint is
  /// due, after every pending check_sums; no checkpoint is written if the run failed), and
  /// takes back at a restart.
  virtual nlohmann::json checkpoint_state() { return nlohmann::json::object(); }
  virtual void restore_state(const nlohmann::json& /*state*/) {}

  /// Collective, after a successful run, every task done, every check_sums called: final
  /// figures and summary lines. It may still fail the run (AmrDriver::fail: exit code 1).
  virtual void finished(AmrDriver& /*driver*/) {}
  /// The solver's fields of the JSON report (merged with the driver's).
  virtual nlohmann::json report(const AmrDriver& /*driver*/) const {
    return nlohmann::json::object();
  }
};

}  // namespace tessera
