#pragma once
// euler's checkpoints through tessera's io layer: the conserved state U of every block
// (its leaves stored with their level and p4est coordinates, so an adapted mesh is rebuilt
// as it was), the cycle, the time and what the report needs to continue (the starting
// totals, the history CSV). A checkpoint is written after every --checkpoint-every cycles.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "options.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/session.hpp"

namespace euler {

/// The options that define the run (a restart takes them from the checkpoint), by name, as
/// given (before validate_options fills the problem's defaults). The run length
/// --max-cycles, the outputs and the run-time options may change.
nlohmann::json problem_options(const Options& o);

/// With --restart: opens the checkpoint, checks the problem options given on the command
/// line against it and takes the others from it. Call after session.start() and before
/// validate_options. Fails through session.fail (naming the option) on every rank.
std::unique_ptr<tessera::CheckpointReader> open_restart(tessera::Session& session, Options& o);

/// What the driver carries from one cycle to the next besides the mesh's U.
struct DriverState {
  int cycle = 0;
  double time = 0;
  nlohmann::json start_totals;  ///< the report's totals at cycle 0
  std::string history;          ///< the --history CSV so far
  /// The cycle's adaptation has not run (the run stopped there); a restart runs it first.
  bool adapt_pending = false;
};

/// Writes and reads euler's checkpoints. Main thread.
class EulerCheckpoint {
 public:
  /// Collective (makes the writer when --checkpoint-every > 0): call while setting up.
  EulerCheckpoint(tessera::Session& session, const Options& options,
                  std::unique_ptr<tessera::CheckpointReader> restart);
  ~EulerCheckpoint();

  bool restarting() const { return reader_ != nullptr; }
  /// For a restart: the leaves (and, on as many ranks as wrote it, the partition) the mesh
  /// is built from.
  void prepare_mesh(tessera::AmrMeshOptions& mo);
  /// For a restart: loads U into the mesh's blocks (no task may be in flight) and returns
  /// the driver's state. Fails through session.fail on a bad checkpoint.
  DriverState restore(tessera::AmrMesh& mesh);
  /// After cycle `state.cycle`: submits a checkpoint if one is due (its pack tasks read U
  /// after the cycle's last writer).
  void after_cycle(tessera::AmrMesh& mesh, const DriverState& state);
  /// Waits for the writes in flight.
  void wait();
  nlohmann::json report() const;

 private:
  tessera::Session& session_;
  const Options& options_;
  std::unique_ptr<tessera::CheckpointReader> reader_;
  std::unique_ptr<tessera::CheckpointWriter> writer_;
  tessera::CheckpointRestore restored_;  ///< what the restart read, for the report
};

}  // namespace euler
