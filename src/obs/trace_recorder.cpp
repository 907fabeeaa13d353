#include "tessera/obs/trace_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "obs/clock_sync.hpp"
#include "obs/rank_ordered_file.hpp"
#include "record/intervals.hpp"
#include "record/message_pairing.hpp"
#include "record/task_event_text.hpp"
#include "record/task_records.hpp"
#include "record/trace_format.hpp"
#include "record/worker_index_check.hpp"
#include "tessera/base/check_mpi.hpp"
#include "tessera/base/monotonic_clock.hpp"
#include "tessera/base/tick_clock.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {

namespace {

/// Thread id of the first MPI row of a rank; overlapping requests use 1001, 1002, ...
constexpr int kMpiThreadBase = 1000;
/// Task events each rank formats per round of writing (~5 MB of text). Every round
/// waits for the slowest rank's piece, so rounds must be few (1 MiB rounds lost ~3 ms
/// each to such waits on a loaded machine); the reused buffers of two rounds are still
/// far below a file-sized one.
constexpr std::size_t kRoundEvents = 32768;
/// Room reserved per task event of a range (they take ~150 bytes): a buffer that grows
/// while formatting copies itself and takes fresh pages each time; reserved pages that
/// stay unused cost nothing.
constexpr std::size_t kReservedEventBytes = 256;

using obs::EventBuffer;
using obs::ReadyMark;
using obs::TaskSpan;
namespace submit_words = obs::submit_words;

}  // namespace

// Outside the anonymous namespace: TraceRecorder::Impl (a class of the public header) holds
// these, and a member whose type has internal linkage is an error when this file is
// compiled inside a unity batch (-Wsubobject-linkage).
namespace obs {

/// One MPI operation from post to completion (complete_ticks < 0: not completed).
struct CommRecord {
  CommEvent::Kind kind;
  int peer;
  int tag;
  std::size_t bytes;
  std::uint64_t id;
  const char* task_name;
  std::uint64_t task_id;  // task whose body was running on the main thread at posting (0: none)
  std::int64_t post_ticks;
  std::int64_t complete_ticks;
};

}  // namespace obs

namespace {

using obs::CommRecord;

/// Per-rank facts rank 0 puts in the file's "tessera" section.
struct RankSummary {
  std::int64_t threads;
  std::int64_t tasks_submitted;
  std::int64_t clock_offset_ns;
  std::int64_t lane_ns;
};

bool is_point_to_point(CommEvent::Kind kind) {
  return kind == CommEvent::Kind::send || kind == CommEvent::Kind::recv;
}

/// Gathers equal-typed PODs of every rank on rank 0 (rank order); empty elsewhere.
template <class T>
std::vector<T> gather_to_root(const std::vector<T>& mine, MPI_Comm comm, int rank, int size) {
  const int bytes = static_cast<int>(mine.size() * sizeof(T));
  std::vector<int> counts(rank == 0 ? size : 0);
  ::tessera::detail::check_mpi(MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm),
                               "MPI_Gather");
  std::vector<int> displacements(counts.size(), 0);
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  std::vector<T> all(total / sizeof(T));
  ::tessera::detail::check_mpi(MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(),
                                           displacements.data(), MPI_BYTE, 0, comm),
                               "MPI_Gatherv");
  return all;
}

/// Inverse of gather_to_root for one int64 per gathered element.
std::vector<std::int64_t> scatter_from_root(const std::vector<std::int64_t>& all,
                                            std::size_t mine_count, MPI_Comm comm, int rank,
                                            int size) {
  const int count = static_cast<int>(mine_count);
  std::vector<int> counts(rank == 0 ? size : 0);
  ::tessera::detail::check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm),
                               "MPI_Gather");
  std::vector<int> displacements(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) {
    displacements[r] = displacements[r - 1] + counts[r - 1];
  }
  std::vector<std::int64_t> mine(mine_count);
  ::tessera::detail::check_mpi(MPI_Scatterv(all.data(), counts.data(), displacements.data(),
                                            MPI_INT64_T, mine.data(), count, MPI_INT64_T, 0, comm),
                               "MPI_Scatterv");
  return mine;
}

/// One formatting job: the task spans [begin, end) of one thread.
struct SpanRange {
  int thread;
  std::size_t begin;
  std::size_t end;
};

/// Runs formatting jobs as tasks on a runtime (its idle threads format while the main
/// thread writes), or inline without one.
class FormatJobs {
 public:
  explicit FormatJobs(Runtime* runtime) : runtime_(runtime) {}
  /// Jobs still pending here are those of a write that an error unwinds: they fill
  /// buffers about to be freed, so wait for them; the first error is already on its way.
  ~FormatJobs() {
    if (!pending_) return;
    try {
      runtime_->wait_all();
    } catch (...) {
    }
  }
  FormatJobs(const FormatJobs&) = delete;
  FormatJobs& operator=(const FormatJobs&) = delete;

  template <class F>
  void run(F&& job) {
    if (!runtime_) {
      job();
      return;
    }
    runtime_->submit("trace.format", std::span<const Access>(), std::forward<F>(job));
    pending_ = true;
  }
  /// Returns when every job run so far has finished.
  void wait() {
    if (!pending_) return;
    pending_ = false;
    runtime_->wait_all();
  }

 private:
  Runtime* runtime_;
  bool pending_ = false;
};

std::string_view view(const fmt::memory_buffer& text) {
  return std::string_view(text.data(), text.size());
}

}  // namespace

struct TraceRecorder::Impl {
  /// One per worker, on its own cache lines: written only by that worker.
  struct alignas(64) WorkerLog {
    EventBuffer<TaskSpan> spans;
    EventBuffer<ReadyMark> ready;
    std::int64_t begin_ticks = 0;
    std::uint64_t running = 0;  // id of the task whose body runs now (0: none)
  };

  Impl(int thread_count, RunStats* run_stats) : threads(thread_count), stats(run_stats) {
    if (threads < 1) {
      throw std::invalid_argument("TraceRecorder: threads must be >= 1 (got " +
                                  std::to_string(threads) + ")");
    }
    for (int i = 0; i < threads; ++i) workers.push_back(std::make_unique<WorkerLog>());
  }

  /// This rank's stamps on the common time line: ns of rank 0's clock since origin.
  obs::TraceTimeLine time_line(const base::TickCalibration& clock) const {
    return obs::TraceTimeLine(clock, clock_offset_ns + origin_ns);
  }

  void format_metadata(fmt::memory_buffer& out, int lanes) const;
  void format_comm(fmt::memory_buffer& out, obs::TraceTimeLine time, const std::vector<int>& lanes,
                   const std::vector<std::int64_t>& flow_ids, std::int64_t write_ticks) const;

  int threads;
  int rank = 0;
  int size = 1;
  std::int64_t clock_offset_ns = 0;  // this rank's clock minus rank 0's
  std::int64_t origin_ns = 0;        // rank 0's clock when recording started
  base::TickReference reference = base::TickReference::now();
  std::vector<std::unique_ptr<WorkerLog>> workers;
  // Main thread only.
  EventBuffer<std::uint64_t> submits;  // packed records, see submit_words
  std::uint64_t submitted = 0;
  RunStats* stats;
  std::vector<CommRecord> comm;
  std::unordered_map<std::uint64_t, std::size_t> open_comm;  // operation id -> index in comm
  std::int64_t lane_ticks = 0;
};

TraceRecorder::TraceRecorder(int threads, MPI_Comm comm, RunStats* stats)
    : impl_(std::make_unique<Impl>(threads, stats)) {
  Impl& s = *impl_;
  const std::int64_t local_start = base::monotonic_ns();
  ::tessera::detail::check_mpi(MPI_Comm_rank(comm, &s.rank), "MPI_Comm_rank");
  ::tessera::detail::check_mpi(MPI_Comm_size(comm, &s.size), "MPI_Comm_size");
  s.clock_offset_ns = obs::measure_offset_to_root(comm);
  s.origin_ns = local_start;
  ::tessera::detail::check_mpi(MPI_Bcast(&s.origin_ns, 1, MPI_INT64_T, 0, comm), "MPI_Bcast");
}

TraceRecorder::~TraceRecorder() = default;

void TraceRecorder::on_submit(const TaskInfo& task) {
  Impl& s = *impl_;
  const std::uint8_t tag_count = task.tags ? task.tags->count : 0;
  std::uint64_t counts = task.accesses.size() | std::uint64_t{tag_count}
                                                    << submit_words::kTagCountShift;
  if (task.priority == Priority::high) counts |= submit_words::kHighPriority;
  if (task.main_thread_only) counts |= submit_words::kMainThreadOnly;
  if (task.replayed) counts |= submit_words::kReplayed;
  s.submits.push_back(task.id);
  s.submits.push_back(counts);
  for (std::uint8_t i = 0; i < tag_count; ++i) {
    s.submits.push_back(static_cast<std::uint64_t>(task.tags->values[i]));
  }
  for (const AccessInfo& a : task.accesses) {
    s.submits.push_back(a.handle_id << submit_words::kModeBits |
                        static_cast<std::uint64_t>(a.mode));
  }
  if (task.replayed) s.submits.push_back(static_cast<std::uint64_t>(task.iteration));
  ++s.submitted;
}

void TraceRecorder::on_ready(const TaskInfo& task, int worker) {
  obs::check_worker_index("TraceRecorder", worker, impl_->threads);
  impl_->workers[worker]->ready.push_back(ReadyMark{task.id, base::fast_ticks()});
}

void TraceRecorder::on_begin(const TaskInfo& task, int worker) {
  obs::check_worker_index("TraceRecorder", worker, impl_->threads);
  const std::int64_t begin = base::ordered_ticks();
  Impl::WorkerLog& w = *impl_->workers[worker];
  w.running = task.id;
  w.begin_ticks = begin;
  if (impl_->stats) impl_->stats->begin_at(worker, begin);
}

void TraceRecorder::on_end(const TaskInfo& task, int worker) {
  obs::check_worker_index("TraceRecorder", worker, impl_->threads);
  // Unordered is enough here: the counter is read before this call returns, hence
  // before the completion that releases successors becomes visible to them, and their
  // begin stamps are ordered after seeing it.
  const std::int64_t end = base::fast_ticks();
  Impl::WorkerLog& w = *impl_->workers[worker];
  w.spans.push_back(TaskSpan{task.id, task.name, w.begin_ticks, end});
  w.running = 0;
  if (impl_->stats) impl_->stats->end_at(task.name, worker, end);
}

void TraceRecorder::on_post(const CommEvent& event) {
  Impl& s = *impl_;
  // MPI is posted by the main thread (worker 0), usually from a communication task's body.
  s.open_comm[event.id] = s.comm.size();
  s.comm.push_back(CommRecord{event.kind, event.peer, event.tag, event.bytes, event.id, event.name,
                              s.workers[0]->running, base::ordered_ticks(), -1});
}

void TraceRecorder::on_complete(const CommEvent& event) {
  Impl& s = *impl_;
  const auto it = s.open_comm.find(event.id);
  if (it == s.open_comm.end()) return;  // posted before this recorder was attached
  s.comm[it->second].complete_ticks = base::ordered_ticks();
  s.open_comm.erase(it);
}

void TraceRecorder::on_lane_time(std::int64_t ticks) {
  impl_->lane_ticks += ticks;
}

void TraceRecorder::Impl::format_metadata(fmt::memory_buffer& out, int lanes) const {
  auto it = fmt::appender(out);
  // Rank 0's text opens the event list; every other piece follows a comma.
  if (rank != 0) out.append(std::string_view(",\n"));
  fmt::format_to(it,
                 "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{0},\"args\":{{\"name\":"
                 "\"rank {0}\"}}}},\n{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{0},"
                 "\"args\":{{\"sort_index\":{0}}}}}",
                 rank);
  for (int t = 0; t < threads; ++t) {
    fmt::format_to(it,
                   ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},"
                   "\"args\":{{\"name\":\"{}\"}}}}",
                   rank, t, t == 0 ? std::string("main") : fmt::format("worker {}", t));
  }
  for (int lane = 0; lane < lanes; ++lane) {
    fmt::format_to(it,
                   ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},"
                   "\"args\":{{\"name\":\"{}\"}}}}",
                   rank, kMpiThreadBase + lane,
                   lane == 0 ? std::string("mpi") : fmt::format("mpi +{}", lane));
  }
}

void TraceRecorder::Impl::format_comm(fmt::memory_buffer& out, obs::TraceTimeLine time,
                                      const std::vector<int>& lanes,
                                      const std::vector<std::int64_t>& flow_ids,
                                      std::int64_t write_ticks) const {
  auto it = fmt::appender(out);
  std::size_t p2p = 0;
  for (std::size_t i = 0; i < comm.size(); ++i) {
    const CommRecord& c = comm[i];
    const std::int64_t flow = is_point_to_point(c.kind) ? flow_ids[p2p++] : -1;
    const bool completed = c.complete_ticks >= 0;
    const std::int64_t post = time.ns(c.post_ticks);
    const std::int64_t end = time.ns(completed ? c.complete_ticks : write_ticks);
    const int tid = kMpiThreadBase + lanes[i];
    fmt::format_to(
        it, ",\n{{\"ph\":\"X\",\"cat\":\"mpi\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":",
        to_string(c.kind), rank, tid);
    obs::append_microseconds(out, post);
    out.append(std::string_view(",\"dur\":"));
    obs::append_microseconds(out, end - post);
    fmt::format_to(it, ",\"args\":{{\"kind\":\"{}\",\"peer\":{},\"tag\":{},\"bytes\":{},\"id\":{}",
                   to_string(c.kind), c.peer, c.tag, c.bytes, c.id);
    if (c.task_id != 0) fmt::format_to(it, ",\"posted_in_task\":{}", c.task_id);
    out.append(std::string_view(",\"task_name\":"));
    obs::append_json_string(out, c.task_name ? c.task_name : "");
    if (flow >= 0) fmt::format_to(it, ",\"message\":{}", flow);
    if (!completed) out.append(std::string_view(",\"incomplete\":true"));
    out.append(std::string_view("}}"));
    if (flow < 0) continue;
    // The arrow leaves the send when it is posted and enters the receive just before it
    // completes (the flow binds to the slice enclosing its timestamp).
    const bool send = c.kind == CommEvent::Kind::send;
    const std::int64_t at = send ? post : std::max(post, end - 1);
    fmt::format_to(it,
                   ",\n{{\"ph\":\"{}\",{}\"cat\":\"mpi\",\"name\":\"message\",\"id\":{},\"pid\":{},"
                   "\"tid\":{},\"ts\":",
                   send ? "s" : "f", send ? "" : "\"bp\":\"e\",", flow, rank, tid);
    obs::append_microseconds(out, at);
    out.push_back('}');
  }
}

void TraceRecorder::write(const std::string& path, MPI_Comm comm, Runtime* formatters) const {
  const Impl& s = *impl_;
  const std::int64_t write_ticks = base::ordered_ticks();
  const base::TickCalibration clock(s.reference);
  MPI_Comm out_comm = MPI_COMM_NULL;
  ::tessera::detail::check_mpi(MPI_Comm_dup(comm, &out_comm), "MPI_Comm_dup");
  struct CommFree {
    MPI_Comm* c;
    ~CommFree() { MPI_Comm_free(c); }
  } free_comm{&out_comm};
  const int rank = s.rank;
  const int size = s.size;

  // Pair sends with receives on rank 0; each rank gets a flow id per send/recv.
  std::vector<obs::MessageRecord> mine;
  std::vector<obs::Interval> spans;
  for (const CommRecord& c : s.comm) {
    spans.push_back({c.post_ticks, c.complete_ticks >= 0 ? c.complete_ticks : write_ticks});
    if (is_point_to_point(c.kind)) {
      mine.push_back({rank, c.peer, c.tag, c.id, c.kind == CommEvent::Kind::send});
    }
  }
  const std::vector<obs::MessageRecord> all = gather_to_root(mine, out_comm, rank, size);
  std::vector<std::int64_t> all_flows(all.size(), -1);
  const std::vector<std::int64_t> partner = obs::pair_messages(all);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (partner[i] >= 0) all_flows[i] = all[i].is_send ? static_cast<std::int64_t>(i) : partner[i];
  }
  const std::vector<std::int64_t> flows =
      scatter_from_root(all_flows, mine.size(), out_comm, rank, size);
  const std::vector<int> lanes = obs::assign_lanes(spans);
  const int lane_count = lanes.empty() ? 0 : *std::max_element(lanes.begin(), lanes.end()) + 1;

  obs::RankOrderedFile file(path, "--trace", out_comm);
  // Rank 0's text opens the event list. Events of different ranks and threads may
  // interleave in the file: the format does not order them.
  const obs::TraceTimeLine time = s.time_line(clock);
  fmt::memory_buffer head;
  if (rank == 0) head.append(std::string_view("{\"traceEvents\":[\n"));
  s.format_metadata(head, lane_count);
  fmt::memory_buffer comm_text;
  s.format_comm(comm_text, time, lanes, flows, write_ticks);

  std::vector<const EventBuffer<ReadyMark>*> ready;
  for (const auto& w : s.workers) ready.push_back(&w->ready);
  const obs::TaskEventText tasks(s.submits, s.submitted, ready, time, rank);
  // A round is up to `per_round` ranges of kRoundEvents / per_round events, formatted at
  // once, one per thread of `formatters`.
  const std::size_t per_round = formatters ? static_cast<std::size_t>(formatters->threads()) : 1;
  const std::size_t range_events = std::max<std::size_t>(1, kRoundEvents / per_round);
  std::vector<SpanRange> ranges;
  for (int t = 0; t < s.threads; ++t) {
    const std::size_t n = s.workers[t]->spans.size();
    for (std::size_t b = 0; b < n; b += range_events) {
      ranges.push_back({t, b, std::min(n, b + range_events)});
    }
  }
  const std::size_t rounds = std::max<std::size_t>(1, (ranges.size() + per_round - 1) / per_round);
  // With several threads, one round is formatted while the main thread writes the one
  // before, in two sets of reused buffers; one thread formats and writes in turn, in one
  // set (fresh memory costs: each set's pages are faulted in and zeroed once).
  const bool pipelined = per_round > 1;
  std::vector<fmt::memory_buffer> text((pipelined ? 2 : 1) * per_round);
  const auto text_of = [&](std::size_t range) -> fmt::memory_buffer& {
    return text[range % text.size()];
  };
  const auto ranges_of = [&](std::size_t round) {
    return std::pair(std::min(ranges.size(), round * per_round),
                     std::min(ranges.size(), (round + 1) * per_round));
  };
  FormatJobs jobs(formatters);
  const auto format_round = [&](std::size_t round) {
    const auto [first, last] = ranges_of(round);
    for (std::size_t i = first; i < last; ++i) {
      jobs.run([&tasks, &s, &out = text_of(i), range = ranges[i]] {
        out.clear();
        out.reserve((range.end - range.begin) * kReservedEventBytes);
        tasks.append(out, range.thread, s.workers[range.thread]->spans, range.begin, range.end);
      });
    }
  };
  if (pipelined) format_round(0);
  std::vector<std::string_view> pieces;
  for (std::size_t round = 0;; ++round) {
    if (!pipelined) format_round(round);
    jobs.wait();
    if (pipelined && round + 1 < rounds) format_round(round + 1);
    pieces.clear();
    if (round == 0) pieces.push_back(view(head));
    const auto [first, last] = ranges_of(round);
    for (std::size_t i = first; i < last; ++i) pieces.push_back(view(text_of(i)));
    if (round + 1 == rounds) pieces.push_back(view(comm_text));
    if (!file.append_round(pieces, round + 1 < rounds)) break;
  }

  const std::vector<RankSummary> summaries =
      gather_to_root(std::vector<RankSummary>{{s.threads, static_cast<std::int64_t>(s.submitted),
                                               s.clock_offset_ns, clock.duration_ns(s.lane_ticks)}},
                     out_comm, rank, size);
  fmt::memory_buffer tail;
  if (rank == 0) {
    const auto column = [&](auto field) {
      std::string list;
      for (const RankSummary& r : summaries)
        list += fmt::format("{}{}", list.empty() ? "" : ",", field(r));
      return list;
    };
    // Our own section goes last: Perfetto stops reading at a top-level key it does not
    // know, and by then it has every event.
    fmt::format_to(fmt::appender(tail),
                   "\n],\n\"tessera\":{{\"ranks\":{},\"clock\":\"{}\","
                   "\"threads\":[{}],"
                   "\"tasks_submitted\":[{}],\"clock_offset_ns\":[{}],\"lane_ns\":[{}]}}}}\n",
                   size, base::ticks_are_tsc() ? "tsc" : "steady",
                   column([](const RankSummary& r) { return r.threads; }),
                   column([](const RankSummary& r) { return r.tasks_submitted; }),
                   column([](const RankSummary& r) { return r.clock_offset_ns; }),
                   column([](const RankSummary& r) { return r.lane_ns; }));
  }
  file.append_round(view(tail), false);
  file.commit();
}

}  // namespace tessera
