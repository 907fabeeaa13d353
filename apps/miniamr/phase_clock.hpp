#pragma once
// Main-thread wall time per driver phase. Phase ends go through Exec::end_phase (the
// barrier that closes a phase under forkjoin).
//
// Exec::begin_phase would keep these times itself, but Session::finish currently reads
// them back through a dangling temporary (see docs/apps/miniamr.md, "Known issues"), so
// the app keeps its own until that is fixed.

#include <chrono>
#include <map>
#include <string>

#include "tessera/exec.hpp"

namespace miniamr {

class PhaseClock {
 public:
  explicit PhaseClock(tessera::Exec& exec) : exec_(exec) {}
  /// Starts accounting to `name` (closing the open phase).
  void begin(const char* name) {
    close();
    current_ = name;
    since_ = Clock::now();
  }
  /// Ends the phase: under forkjoin waits for its tasks.
  void end() {
    exec_.end_phase();
    close();
  }
  const std::map<std::string, double>& seconds() const { return seconds_; }

 private:
  using Clock = std::chrono::steady_clock;
  void close() {
    if (current_ == nullptr) return;
    seconds_[current_] += std::chrono::duration<double>(Clock::now() - since_).count();
    current_ = nullptr;
  }
  tessera::Exec& exec_;
  const char* current_ = nullptr;
  Clock::time_point since_{};
  std::map<std::string, double> seconds_;
};

}  // namespace miniamr
