#pragma once
// The miniamr time-stepping driver: miniAMR's main loop written as tasks.
//
//   refine (t = 0)
//   for each timestep: for each stage: for each variable group:
//       halo exchange, stencil, [checksum of the group's blocks]
//     [combine + all-reduce the checksum; validate the previous one]
//     move the objects; every refine_freq timesteps: refine (+ load balance)
//
// The only waits are the one before the forest changes shape and the delayed
// checksum validation (which waits for the previous checksum, not for the current stage).

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checksums.hpp"
#include "options.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/session.hpp"

namespace miniamr {

/// Block counts after one refinement step.
struct RefinementRecord {
  int timestep = 0;
  std::vector<std::int64_t> levels;
  std::int64_t total = 0;
};

/// What a run did, for the reports.
struct RunTotals {
  std::vector<std::int64_t> blocks_per_step;  // global blocks during each timestep
  std::vector<RefinementRecord> refinements;
  std::int64_t total_blocks = 0;  // sum over all stages of the global block count
  double flops = 0;
  std::int64_t splits = 0, merges = 0, moved = 0;  // global
  int refine_steps = 0, balance_steps = 0;
  std::int64_t checksums = 0;
  double loop_seconds = 0;  // wall time of the time-stepping loop (incl. refinement)
  double total_seconds = 0;
  std::int32_t max_blocks_per_rank = 0;
  int timesteps_done = 0;
  bool validation_failed = false;
  std::string checksum_hex;
  double checksum = 0;
  std::vector<std::string> var_sums_hex;
  int restarted_from = -1;  // timestep of the checkpoint the run continued from
  int checkpoints_written = 0;
  double checkpoint_write_seconds = 0;
  std::int64_t checkpoint_bytes = 0;      // field data of the last checkpoint written
  double checkpoint_read_seconds = 0;     // reading and verifying the blocks at a restart
  double checkpoint_restore_seconds = 0;  // the whole restore (forest rebuilt from the blocks)
  // checkpoint_read_seconds by phase (CheckpointReader::read_phase_seconds).
  std::map<std::string, double> checkpoint_read_phases;
};

class Driver {
 public:
  /// `problem` is problem_options(options); `restart` (may be null) is the checkpoint the
  /// run continues from, its header already checked against the options.
  Driver(tessera::Session& session, const Options& options, nlohmann::json problem,
         tessera::CheckpointReader* restart);
  ~Driver();

  /// Runs the simulation; returns the process exit code (0, or 1 if validation failed or
  /// the mesh outgrew --max_blocks).
  int run();
  const RunTotals& totals() const { return totals_; }
  /// The app's fields of the JSON report.
  nlohmann::json json() const;

 private:
  void initialize();
  void restore(tessera::AmrMeshOptions mesh_options);
  void write_checkpoint(int ts);
  nlohmann::json state() const;
  void stage(int ts, int stage_index);
  void refine_step(int ts);
  bool maybe_rebalance();
  void submit_checksum_round(int ts);
  void validate(int round);
  void validate_all_pending();
  void final_checksum();
  void plot(int ts);

  tessera::Session& session_;
  Options options_;
  nlohmann::json problem_;
  tessera::CheckpointReader* restart_;
  std::unique_ptr<tessera::CheckpointWriter> writer_;
  std::int32_t restored_max_blocks_ = 0;
  std::unique_ptr<tessera::AmrMesh> mesh_;
  std::unique_ptr<Checksums> checksums_;
  std::vector<tessera::RefineObject> objects_;
  RunTotals totals_;
  std::vector<double> reference_sums_;  // last validated sum per variable
  int next_round_ = 0;                  // rounds submitted so far
  int validated_rounds_ = 0;            // rounds validated so far (round 0 is the initial sum)
  std::vector<int> round_timestep_;     // timestep of each round, for messages
  bool stop_ = false;
};

}  // namespace miniamr
