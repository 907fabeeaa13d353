#pragma once
// Measured cost per block: the time the bodies of the tasks that name a cost slot took,
// per slot (a block's local index, say), and the rank's measured speed. A partition by
// cost (mesh/weighted_split.hpp) gives each rank a share of the blocks' measured work that
// matches its speed.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/base/tick_clock.hpp"

namespace tessera {

/// What a CostTable measured: per slot, the seconds the bodies naming it took (summed over
/// threads) and their work, and the rank's totals over all slots.
struct CostWindow {
  /// Per slot: seconds of the task bodies that named it, summed over threads.
  std::vector<double> seconds;
  /// Per slot: the work of those tasks, TaskAttributes::work (1 per task that states none).
  std::vector<double> work;
  double busy_seconds = 0;  ///< sum of `seconds`
  double work_done = 0;     ///< sum of `work`
  int threads = 1;          ///< the threads the runtime ran them on
  /// Seconds the process's threads spent runnable but not running over the window (Linux
  /// /proc/self/task/*/schedstat; 0 where unknown and in a simulation): the share of a
  /// core that another process took, a rank sharing its core, a busy machine.
  double waiting_seconds = 0;

  /// The rank's measured speed: work done per busy second of one thread, times the
  /// threads (a rank with two threads does twice the work of one in the same time), where
  /// a busy second also counts the seconds its threads waited for a core: two ranks taking
  /// turns on one core each run their bodies at full speed, but wait for the core as long.
  /// The waits count up to the busy time (the speed at most halves by them): beyond it they
  /// are mostly an idle rank yielding in MPI while its core's other rank works, which
  /// would starve it further. 0 when nothing was measured.
  double speed() const {
    const double waits = waiting_seconds < busy_seconds ? waiting_seconds : busy_seconds;
    return busy_seconds > 0 ? work_done / (busy_seconds + waits) * threads : 0.0;
  }
  /// The cost of slot s in work units at this rank's speed: its seconds times the rank's
  /// work per busy second. Uniform work gives each slot its work; a slot whose tasks take
  /// longer per unit of work than the rank's average costs more. 0 when nothing was measured.
  double normalized_cost(std::size_t s) const {
    return busy_seconds > 0 ? seconds[s] * (work_done / busy_seconds) : 0.0;
  }
};

/// A per-rank table of measured task costs, one slot per unit of work the program moves
/// between ranks (a block). The runtime it is attached to (Runtime::set_cost_table) adds the
/// elapsed ticks of every task body that names a slot (TaskAttributes::cost_slot), reusing the
/// clock read of run statistics where there is one. Each thread adds to a row of its own, so
/// the hot path takes no lock and no atomic; close_window, on the main thread with no task in
/// flight, sums the rows. Measuring never changes what a task computes.
class CostTable {
 public:
  /// A table for a runtime of `threads` threads (>= 1) with `slots` slots, all zero.
  explicit CostTable(int threads, std::size_t slots = 0);
  ~CostTable();
  CostTable(const CostTable&) = delete;
  CostTable& operator=(const CostTable&) = delete;

  /// Drops every measurement and makes `slots` zero slots (after a mesh change the slots
  /// name other blocks). Main thread, no task in flight.
  void reset(std::size_t slots);
  std::size_t slots() const { return slots_; }
  int threads() const { return threads_; }

  /// Adds one body's `ticks` (base::fast_ticks units) and `work` to `slot` in thread
  /// `worker`'s row. Called by the runtime on the thread that ran the body, `worker` its
  /// index; slots outside [0, slots()) are ignored. No other thread writes that row.
  void add(int worker, std::int32_t slot, std::int64_t ticks, std::int64_t work) noexcept {
    if (slot < 0 || static_cast<std::size_t>(slot) >= slots_ || worker < 0 || worker >= threads_)
      return;
    std::int64_t* row = rows_[static_cast<std::size_t>(worker)].get();
    row[2 * static_cast<std::size_t>(slot)] += ticks;
    row[2 * static_cast<std::size_t>(slot) + 1] += work;
  }

  /// Ends a measurement window and returns the decayed sums: per slot, `keep` times the
  /// sums it returned last time (0 <= keep < 1; 0 gives only this window) plus what the
  /// bodies added since, converted to seconds. Main thread, no task in flight.
  CostWindow close_window(double keep = 0.0);
  /// What the last close_window returned (zeros before the first).
  const CostWindow& last_window() const { return window_; }

 private:
  int threads_;
  std::size_t slots_ = 0;
  // Per thread: ticks and work of each slot, interleaved, padded to keep rows apart.
  std::vector<std::unique_ptr<std::int64_t[]>> rows_;
  base::TickReference opened_;
  double waited_at_open_ = 0;  // the process's runnable-not-running seconds at the window's start
  CostWindow window_;
};

}  // namespace tessera
