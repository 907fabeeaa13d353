#pragma once
// Run statistics (layer `obs`): per task name count/total/mean time, per thread time
// executing, handling communication and idle, messages and bytes, and the overlap
// fraction. Cheap enough to stay attached for every run.

#include <mpi.h>

#include <nlohmann/json.hpp>

#include "tessera/comm.hpp"
#include "tessera/observer.hpp"

namespace tessera {

class RunStats : public Observer, public CommObserver {
 public:
  /// `threads`: workers of the runtime it will observe (main thread = 0).
  explicit RunStats(int threads);
  ~RunStats() override;

  /// Marks the start and the end of the measured interval (main thread).
  void start();
  void stop();

  void on_submit(const TaskInfo& task) override;
  void on_ready(const TaskInfo& task, int worker) override;
  void on_begin(const TaskInfo& task, int worker) override;
  void on_end(const TaskInfo& task, int worker) override;
  void on_post(const CommEvent& event) override;
  void on_complete(const CommEvent& event) override;
  void on_lane_time(double seconds) override;

  /// Collective over `comm` (main thread, after all tasks completed). Returns, on every
  /// rank, the totals over all ranks:
  ///   "tasks":   { name: {"count", "total_s", "mean_s"} }
  ///   "threads": [ {"rank", "thread", "exec_s", "comm_s", "idle_s"} ]
  ///   "overlap_fraction": share of request-in-flight time during which a task was
  ///                       executing on the same rank, over total in-flight time
  ///   "messages", "bytes": point-to-point messages and bytes sent
  nlohmann::json collect(MPI_Comm comm) const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace tessera
