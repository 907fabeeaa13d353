#pragma once
// Run statistics (layer `obs`): per task name count/total/mean time, per thread time
// executing, handling communication and idle, messages and bytes, and the overlap
// fraction. Cheap enough to stay attached for every run.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "tessera/comm/comm.hpp"
#include "tessera/runtime/observer.hpp"

namespace tessera {

/// What RunStats measures.
enum class StatsDetail : std::uint8_t {
  /// Task times by name, thread times and the overlap fraction: one clock read per task
  /// and per lane call that completes operations.
  full,
  /// Task counts by name only: no clock read and nothing from the communication layer,
  /// for the lowest overhead on runs of sub-microsecond tasks.
  counts,
};

/// "full" or "counts".
std::string_view to_string(StatsDetail detail);

/// Observer contract: on_executed (or on_begin/on_end) from any worker (index < threads)
/// concurrently, each touching only that worker's slots (a name-table update and at most
/// one append; no locks, no shared writes); comm callbacks on the main thread.
/// Memory: 16 bytes per busy period of a worker (back-to-back tasks share one), plus one
/// entry per task name and worker.
class RunStats : public Observer, public CommObserver {
 public:
  /// `threads`: workers of the runtime it will observe (main thread = 0); >= 1, else
  /// std::invalid_argument. The measured interval starts now (see start()).
  explicit RunStats(int threads, StatsDetail detail = StatsDetail::full);
  ~RunStats() override;
  RunStats(const RunStats&) = delete;
  RunStats& operator=(const RunStats&) = delete;

  /// Marks the start and the end of the measured interval (main thread): the wall time
  /// behind idle_s, and the window of the overlap fraction. Task times count every task
  /// observed. Without stop(), the interval ends at collect().
  void start();
  void stop();

  /// Only how long each task ran matters to the statistics: one on_executed per task
  /// (full), or only that it ran: one on_counted per task (counts).
  unsigned events() const override;
  StatsDetail detail() const;
  void on_submit(const TaskInfo& task) override;
  void on_ready(const TaskInfo& task, int worker) override;
  void on_begin(const TaskInfo& task, int worker) override;
  void on_end(const TaskInfo& task, int worker) override;
  /// on_begin / on_end with a time stamp the caller already read from the obs tick clock
  /// (base::fast_ticks, see Observer::on_executed; same contract otherwise): TraceRecorder forwards
  /// its own stamps here, so a traced task is stamped once for both observers.
  void begin_at(int worker, std::int64_t ticks);
  void end_at(const char* task_name, int worker, std::int64_t ticks);
  /// on_begin and on_end in one call, with the runtime's stamps.
  void on_executed(const char* task_name, int worker, std::int64_t begin_ticks,
                   std::int64_t end_ticks) override;
  void on_counted(const char* task_name, int worker) override;

  /// Messages are counted as their sends complete: no call per post.
  bool wants_posts() const override { return false; }
  void on_post(const CommEvent& event) override;
  /// With StatsDetail::counts, operations are only counted, not timed.
  void on_complete(const CommEvent& event) override;
  void on_lane_time(std::int64_t ticks) override;

  /// Collective over `comm` (main thread, after all tasks completed). Returns, on every
  /// rank, the totals over all ranks:
  ///   "tasks":   { name: {"count", "total_s", "mean_s"} }
  ///   "threads": [ {"rank", "thread", "exec_s", "comm_s", "idle_s"} ]
  ///                (idle = measured wall time - exec - comm, at least 0; comm is the
  ///                lane time reported to on_lane_time, on thread 0)
  ///   "overlap_fraction": share of request-in-flight time during which a task was
  ///                       executing on the same rank, over total in-flight time (0 when
  ///                       nothing was in flight); ranks weigh by their in-flight time.
  ///                       Scheduling gaps under ~1 us between back-to-back tasks of a
  ///                       worker count as executing.
  ///   "in_flight_s", "overlapped_s": the two sums behind it
  ///   "ranks":   [ {"rank", "in_flight_s", "overlap_fraction"} ]
  ///   "messages", "bytes": point-to-point messages and bytes sent
  /// With StatsDetail::counts, only "tasks" (each {"count"}), "messages" and "bytes".
  nlohmann::json collect(MPI_Comm comm) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera
