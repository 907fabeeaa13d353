#pragma once
// Execution models (layer `exec`), chosen at run time. Apps are written once against
// Exec; the model decides how their tasks run.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/runtime/runtime.hpp"

namespace tessera {

/// bsp: tasks run inline in program order on one thread, communication posted and
/// waited per phase (the MPI-only reference). forkjoin: a phase's tasks run in parallel
/// and a barrier ends every phase (MPI+OpenMP style). dataflow: everything is a task; no
/// barrier but those the algorithm needs.
enum class ExecModel { bsp, forkjoin, dataflow };

std::string_view to_string(ExecModel model);
/// Parses "bsp", "forkjoin" or "dataflow"; std::nullopt otherwise.
std::optional<ExecModel> parse_exec_model(std::string_view text);

/// RuntimeOptions implementing `model` with `threads` threads (bsp forces sequential).
RuntimeOptions runtime_options_for(ExecModel model, int threads);

/// The model as seen by app and mesh code: phase boundaries and phase timing.
class Exec {
 public:
  Exec(ExecModel model, Runtime& runtime);

  ExecModel model() const { return model_; }
  /// Starts accounting main-thread wall time to phase `name` (a string literal).
  void begin_phase(const char* name);
  /// Ends an algorithmic phase: under forkjoin waits for every submitted task (the
  /// barrier closing a parallel region); under bsp and dataflow returns at once.
  void end_phase();
  /// A wait the algorithm itself needs (all models): waits for every task.
  void barrier();
  /// Priority for a task on a skeleton block (high only under dataflow with priorities).
  Priority skeleton_priority() const {
    return model_ == ExecModel::dataflow && skeleton_priorities_ ? Priority::high
                                                                 : Priority::normal;
  }
  void set_skeleton_priorities(bool on) { skeleton_priorities_ = on; }
  /// Seconds of main-thread wall time per phase so far (closes the open phase's span).
  std::map<std::string, double> phase_seconds();

 private:
  void close_phase();
  ExecModel model_;
  Runtime& runtime_;
  bool skeleton_priorities_ = true;
  const char* current_ = nullptr;
  // Phases change several times per step in fine-grained runs: spans are measured in
  // cycle-counter ticks (a few ns to read, where the steady clock costs tens) and
  // converted to seconds when reported.
  std::int64_t reference_ticks_ = 0;
  std::int64_t reference_ns_ = 0;
  std::int64_t since_ = 0;
  // Keyed by the literal's address (apps have a handful of phases): entering a phase
  // is a short scan of pointers, no string and no allocation.
  std::vector<std::pair<const char*, std::int64_t>> ticks_;
};

}  // namespace tessera
