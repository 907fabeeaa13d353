#pragma once
// What a TraceRecorder stores per task while the run lasts (recording cost is mostly
// memory, so every record is as small as the trace allows), and how its tick stamps map
// onto the trace's time line when it is written.

#include <cstddef>
#include <cstdint>

#include "record/chunked_buffer.hpp"
#include "tessera/base/tick_clock.hpp"
#include "tessera/runtime/handle.hpp"

namespace tessera::obs {

/// A task body's execution on one worker.
struct TaskSpan {
  std::uint64_t id;
  const char* name;
  std::int64_t begin_ticks;
  std::int64_t end_ticks;
};

/// When a task became ready (all predecessors completed). Stamped with base::fast_ticks: it
/// is taken before the task is queued, so it still precedes the ordered begin stamp.
struct ReadyMark {
  std::uint64_t id;
  std::int64_t ticks;
};

/// Trace events fill 2 MiB pre-faulted chunks: tracing stores ~100 bytes per task, and
/// demand paging would cost a page fault every ~40 tasks on the recording threads.
template <class T>
using EventBuffer = ChunkedBuffer<T, detail::kPopulatedChunkBytes / sizeof(T)>;

/// What on_submit saw, packed into 64-bit words so the main thread stores little per task:
/// [id, counts and flags, tags..., accesses...] with counts and flags = access count |
/// tag count << 32 | high priority << 40 | main thread only << 41, and each access =
/// handle id << 2 | mode.
namespace submit_words {
inline constexpr int kTagCountShift = 32;
inline constexpr std::uint64_t kHighPriority = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kMainThreadOnly = std::uint64_t{1} << 41;
/// A replayed instance: one more word, its iteration, follows the accesses.
inline constexpr std::uint64_t kReplayed = std::uint64_t{1} << 42;
inline constexpr int kModeBits = 2;
inline constexpr std::uint64_t kModeMask = (std::uint64_t{1} << kModeBits) - 1;
static_assert(static_cast<int>(AccessMode::reduce) <= kModeMask);
inline std::size_t access_count(std::uint64_t counts) {
  return counts & 0xffff'ffff;
}
inline std::size_t tag_count(std::uint64_t counts) {
  return counts >> kTagCountShift & 0xff;
}
/// Words of the record whose counts-and-flags word is `counts`.
inline std::size_t record_words(std::uint64_t counts) {
  return 2 + tag_count(counts) + access_count(counts) + ((counts & kReplayed) ? 1 : 0);
}
}  // namespace submit_words

/// A rank's tick stamps on the trace's common time line: nanoseconds of rank 0's clock
/// since recording started.
class TraceTimeLine {
 public:
  /// `shift_ns`: this rank's clock offset to rank 0 plus the recording origin.
  TraceTimeLine(const base::TickCalibration& clock, std::int64_t shift_ns)
      : clock_(clock), shift_ns_(shift_ns) {}
  std::int64_t ns(std::int64_t ticks) const { return clock_.to_ns(ticks) - shift_ns_; }

 private:
  const base::TickCalibration& clock_;
  std::int64_t shift_ns_;
};

}  // namespace tessera::obs
