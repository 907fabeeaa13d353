#pragma once
// The command-line options of checkpointing and restart (layer `io`), the same in every
// app: --checkpoint-every N, --checkpoint-dir DIR, --keep K, --restart DIR|latest.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace CLI {
class App;
}

namespace tessera {

struct CheckpointOptions {
  int every = 0;                    ///< steps between checkpoints; 0 = none
  std::string dir = "checkpoints";  ///< where step-N/ directories are written
  int keep = 2;                     ///< newest complete checkpoints kept (>= 1)
  std::string restart;              ///< "" = start fresh; a step directory or "latest"
  bool restarting() const { return !restart.empty(); }
  /// Whether the state after `step` steps is to be written (step > 0, a multiple of every).
  bool due(std::int64_t step) const { return every > 0 && step > 0 && step % every == 0; }

  /// Registers the four options on `cli`, with `step_name` ("iterations", "timesteps")
  /// in the help text. Ranges are checked by CLI11 (every >= 0, keep >= 1). The apps use
  /// declare_checkpoint_options (tessera/restart.hpp) instead, which declares them in the
  /// session's option registry (config files, the report's options).
  void add_to(CLI::App& cli, const std::string& step_name);
};

/// For a restart: every option of `stored` (the checkpoint's problem options, keyed by
/// option name) that was given on the command line must have the value `given[name]`
/// holds; otherwise throws CheckpointError naming the option and both values. Options
/// not given are simply taken from the checkpoint by the caller. Same verdict on every
/// rank (same arguments, same file).
void check_problem_options_agree(const CLI::App& cli, const nlohmann::json& given,
                                 const nlohmann::json& stored, const std::string& file);

}  // namespace tessera
