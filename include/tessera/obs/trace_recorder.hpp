#pragma once
// Tracing (layer `obs`): every task (begin/end, rank, thread, name, tags, accesses) and
// every MPI operation (post/complete, peer, tag, bytes), buffered per thread without
// locks and written at the end as one Chrome trace-event JSON file (Perfetto,
// chrome://tracing): ranks are processes, threads are threads.

#include <mpi.h>

#include <memory>
#include <string>

#include "tessera/comm/comm.hpp"
#include "tessera/obs/run_stats.hpp"
#include "tessera/runtime/observer.hpp"

namespace tessera {

class Runtime;

/// Records every task and MPI operation of one rank and writes them, with the other
/// ranks', as one Chrome trace-event file (layout for readers: docs/reading-a-trace.md):
/// "traceEvents" holds complete events ("ph":"X", ts/dur in microseconds with
/// nanosecond decimals), pid = rank. Tasks (no "cat") sit on tid = worker with args
/// {id, tags, acc: "r12 w7 ..." (mode letters r/w/rw/red and handle id per access),
/// iteration (replayed instances), priority, main_thread_only, queued: ts minus when the
/// task became ready}; empty or default fields are left out. MPI operations ("cat":"mpi",
/// from post to completion) sit on tid 1000 + lane, lanes chosen so that requests on
/// one row never overlap, with args {kind, peer, tag, bytes, id, task_name,
/// posted_in_task, message}; a flow ("s" -> "f") joins every send to the receive it
/// matched. The top-level "tessera" object holds per-rank threads, tasks_submitted,
/// clock_offset_ns and lane_ns.
///
/// Observer contract: task callbacks from any worker (index < threads) concurrently,
/// each appending to that worker's own preallocated chunks (no locks, no shared
/// writes); on_submit and comm callbacks on the main thread.
class TraceRecorder : public Observer, public CommObserver {
 public:
  /// Collective over `comm` (main thread): measures this rank's clock offset to rank 0
  /// (min-round-trip ping-pong) so the ranks' timelines align; time 0 is rank 0's clock
  /// at construction. `threads`: workers of the observed runtime (>= 1). `stats`, if
  /// given, receives every task's begin and end (RunStats::begin_at / end_at) with the
  /// recorder's own time stamps: attach the recorder alone to the runtime, and a traced
  /// task costs one pair of stamps, not two. It must outlive the recording.
  TraceRecorder(int threads, MPI_Comm comm, RunStats* stats = nullptr);
  ~TraceRecorder() override;
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  void on_submit(const TaskInfo& task) override;
  void on_ready(const TaskInfo& task, int worker) override;
  void on_begin(const TaskInfo& task, int worker) override;
  void on_end(const TaskInfo& task, int worker) override;
  void on_post(const CommEvent& event) override;
  void on_complete(const CommEvent& event) override;
  void on_lane_time(std::int64_t ticks) override;

  /// Collective over `comm` (main thread, after all tasks completed): every rank formats
  /// its events a piece at a time and writes them itself into the one file (MPI-IO),
  /// atomically (temporary name + rename); ranks' and threads' events may interleave in
  /// the file. With `formatters`, a runtime whose tasks have all completed and which
  /// this recorder no longer observes, the events are formatted by tasks on its threads
  /// while the main thread writes; without, on the calling thread. On an I/O error every
  /// rank throws std::runtime_error naming the path. Operations still in flight are
  /// written up to now and marked "incomplete".
  void write(const std::string& path, MPI_Comm comm, Runtime* formatters = nullptr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera
