#pragma once
// The text of a rank's task events in a Chrome trace: one complete event ("ph":"X") per
// task body, on the row of the thread that ran it. A trace holds hundreds of thousands,
// so the text is compact and written straight into the output buffer.

#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <vector>

#include "record/task_records.hpp"

namespace tessera::obs {

/// Formats a rank's task events. Built once per write from what was recorded; append()
/// only reads, so several threads may append disjoint ranges at once, each into its own
/// buffer. Every event is
///   ,\n{"ph":"X","name":N,"pid":RANK,"tid":THREAD,"ts":US,"dur":US,"args":{"id":ID,
///   "tags":[..],"acc":"r12 w7","priority":"high","main_thread_only":true,"queued":US}}
/// where tags, acc, priority, main_thread_only and queued appear only when there is
/// something to say. "acc" lists the accesses as mode letters (r read, w write,
/// rw readwrite, red reduce) followed by the handle id; "queued" is the time from the
/// task becoming ready to its begin.
class TaskEventText {
 public:
  /// `submits`: the packed submit records of the `submitted` tasks of this rank (ids
  /// dense in submission order); `ready`: every thread's ready marks. All must outlive
  /// this object and stay unchanged.
  TaskEventText(const EventBuffer<std::uint64_t>& submits, std::uint64_t submitted,
                std::span<const EventBuffer<ReadyMark>* const> ready, TraceTimeLine time, int rank);

  /// Appends the events of spans[begin, end), which thread `thread` ran. Thread-safe.
  void append(fmt::memory_buffer& out, int thread, const EventBuffer<TaskSpan>& spans,
              std::size_t begin, std::size_t end) const;

 private:
  /// Where task `id`'s submit record starts; npos if it has none (submitted before the
  /// recorder was attached).
  std::size_t record_of(std::uint64_t id) const;

  const EventBuffer<std::uint64_t>& submits_;
  TraceTimeLine time_;
  int rank_;
  std::uint64_t first_id_ = 0;
  std::vector<std::size_t> record_at_;     // by id - first_id_
  std::vector<std::int64_t> ready_ticks_;  // by id - first_id_, -1: never marked ready
};

}  // namespace tessera::obs
