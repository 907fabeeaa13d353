#pragma once
// The report's "checkpoint" object (docs/report.md), the same in every app: what was
// written and what a restart read.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tessera {

class CheckpointWriter;

/// What a restart read, as an app measured it (all zero and restarted_from -1 for a fresh
/// start).
struct CheckpointRestore {
  std::int64_t restarted_from = -1;             ///< the checkpoint's step; -1 = not restarted
  double read_s = 0;                            ///< reading, verifying and unpacking the blocks
  std::map<std::string, double> read_phases_s;  ///< read_s by phase (CheckpointReader)
  double restore_s = 0;  ///< the whole restore: read_s and the rest of the app's state
};

/// The report's "checkpoint" object: restarted_from, read_s, read_phases_s, restore_s from
/// `restore`; written, write_s, write_phases_s, bytes (of the last checkpoint) from
/// `writer` (null when the run writes none: zeros). Call after the writer's last wait.
nlohmann::json checkpoint_report(const CheckpointWriter* writer, const CheckpointRestore& restore);

}  // namespace tessera
