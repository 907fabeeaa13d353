#include "tessera/obs/run_stats.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "record/chunked_buffer.hpp"
#include "record/intervals.hpp"
#include "record/task_time_table.hpp"
#include "record/worker_index_check.hpp"
#include "tessera/base/check_mpi.hpp"
#include "tessera/base/tick_clock.hpp"

namespace tessera {

namespace {

constexpr double kSecondsPerNs = 1e-9;
/// Consecutive tasks of one worker separated by at most this many ticks (about 1 us
/// at 2 GHz; 2 us where ticks are ns) count as one busy period for the overlap.
constexpr std::int64_t kMergeGapTicks = 2000;

/// Every rank's JSON text, in rank order, on every rank.
std::vector<nlohmann::json> allgather_json(const nlohmann::json& local, MPI_Comm comm) {
  int size = 1;
  ::tessera::detail::check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const std::string text = local.dump();
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  ::tessera::detail::check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm),
                               "MPI_Allgather");
  std::vector<int> displacements(static_cast<std::size_t>(size), 0);
  long long total = 0;
  for (int r = 0; r < size; ++r) {
    displacements[r] = static_cast<int>(total);
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  ::tessera::detail::check_mpi(MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(),
                                              lengths.data(), displacements.data(), MPI_CHAR, comm),
                               "MPI_Allgatherv");
  std::vector<nlohmann::json> per_rank;
  for (int r = 0; r < size; ++r) {
    per_rank.push_back(nlohmann::json::parse(all.substr(displacements[r], lengths[r])));
  }
  return per_rank;
}

/// Per task name: executions and their total time in ns.
using NameTotals = std::map<std::string, std::pair<std::uint64_t, std::int64_t>>;

/// A rank's share for collect(): its tasks by name, messages and bytes (the timed fields
/// are added by the caller).
nlohmann::json share_of(const NameTotals& by_name, std::uint64_t messages, std::uint64_t bytes) {
  nlohmann::json tasks = nlohmann::json::object();
  for (const auto& [name, totals] : by_name) {
    tasks[name] = {{"count", totals.first}, {"total_ns", totals.second}};
  }
  return {{"tasks", tasks}, {"messages", messages}, {"bytes", bytes}};
}

/// The sums of the ranks' shares (share_of) over all ranks.
struct RankSums {
  NameTotals by_name;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;

  void add(const nlohmann::json& share) {
    for (const auto& [name, t] : share["tasks"].items()) {
      auto& [count, total] = by_name[name];
      count += t["count"].get<std::uint64_t>();
      total += t["total_ns"].get<std::int64_t>();
    }
    messages += share["messages"].get<std::uint64_t>();
    bytes += share["bytes"].get<std::uint64_t>();
  }
};

}  // namespace

struct RunStats::Impl {
  /// One per worker, on its own cache lines: written only by that worker. Times are
  /// ticks (base::fast_ticks), converted to nanoseconds in collect().
  struct alignas(64) WorkerState {
    obs::TaskTimeTable names;
    obs::ChunkedBuffer<obs::Interval> spans;  // busy periods, for the overlap fraction
    std::int64_t begin_ticks = 0;
    std::int64_t last_end_ticks = std::numeric_limits<std::int64_t>::min() / 2;

    void record(const char* task_name, std::int64_t begin, std::int64_t end) {
      names.add(task_name, end - begin);
      // Back-to-back tasks extend one busy period, so memory grows with idle gaps, not
      // with tasks; the scheduling gap folded in is below kMergeGapTicks.
      if (begin - last_end_ticks <= kMergeGapTicks) {
        spans.back().end = end;
      } else {
        spans.push_back({begin, end});
      }
      last_end_ticks = end;
    }
  };

  Impl(int thread_count, StatsDetail stats_detail) : threads(thread_count), detail(stats_detail) {
    if (threads < 1) {
      throw std::invalid_argument("RunStats: threads must be >= 1 (got " + std::to_string(threads) +
                                  ")");
    }
    for (int i = 0; i < threads; ++i) workers.push_back(std::make_unique<WorkerState>());
    start_ticks = reference.ticks;
  }

  int threads;
  StatsDetail detail;
  std::vector<std::unique_ptr<WorkerState>> workers;
  // Main thread only.
  base::TickReference reference = base::TickReference::now();
  // Completed operations, ticks. One overlapping the last entry is folded into it (the
  // overlap fraction needs only their union): memory grows with gaps in communication,
  // not with messages, and a fine-grained run takes no page fault per message.
  obs::ChunkedBuffer<obs::Interval> requests;
  std::int64_t lane_ticks = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::int64_t start_ticks = 0;
  std::int64_t stop_ticks = -1;
};

std::string_view to_string(StatsDetail detail) {
  return detail == StatsDetail::full ? "full" : "counts";
}

RunStats::RunStats(int threads, StatsDetail detail)
    : impl_(std::make_unique<Impl>(threads, detail)) {}

RunStats::~RunStats() = default;

unsigned RunStats::events() const {
  return impl_->detail == StatsDetail::full ? kObserveExecuted : kObserveCounted;
}

StatsDetail RunStats::detail() const {
  return impl_->detail;
}

void RunStats::start() {
  impl_->start_ticks = base::fast_ticks();
  impl_->stop_ticks = -1;
}

void RunStats::stop() {
  impl_->stop_ticks = base::fast_ticks();
}

void RunStats::on_submit(const TaskInfo&) {}

void RunStats::on_ready(const TaskInfo&, int) {}

void RunStats::on_begin(const TaskInfo&, int worker) {
  begin_at(worker, base::fast_ticks());
}

void RunStats::on_end(const TaskInfo& task, int worker) {
  end_at(task.name, worker, base::fast_ticks());
}

void RunStats::begin_at(int worker, std::int64_t ticks) {
  obs::check_worker_index("RunStats", worker, impl_->threads);
  impl_->workers[worker]->begin_ticks = ticks;
}

void RunStats::end_at(const char* task_name, int worker, std::int64_t ticks) {
  obs::check_worker_index("RunStats", worker, impl_->threads);
  Impl::WorkerState& w = *impl_->workers[worker];
  w.record(task_name, w.begin_ticks, ticks);
}

void RunStats::on_executed(const char* task_name, int worker, std::int64_t begin_ticks,
                           std::int64_t end_ticks) {
  obs::check_worker_index("RunStats", worker, impl_->threads);
  impl_->workers[worker]->record(task_name, begin_ticks, end_ticks);
}

void RunStats::on_counted(const char* task_name, int worker) {
  obs::check_worker_index("RunStats", worker, impl_->threads);
  impl_->workers[worker]->names.add(task_name, 0);
}

void RunStats::on_post(const CommEvent&) {}

void RunStats::on_complete(const CommEvent& event) {
  if (event.kind == CommEvent::Kind::send) {
    ++impl_->messages;
    impl_->bytes += event.bytes;
  }
  if (impl_->detail == StatsDetail::counts) return;
  // The event carries its post and completion times: no per-request state or clock read
  // here. One posted before this observer was attached is clipped to the measured
  // interval like any other.
  const obs::Interval done{event.posted_ticks, event.completed_ticks};
  // An eager send completes within its post: nothing was in flight.
  if (done.end <= done.begin) return;
  auto& requests = impl_->requests;
  if (requests.empty() || !obs::fold_into(requests.back(), done)) requests.push_back(done);
}

void RunStats::on_lane_time(std::int64_t ticks) {
  if (impl_->detail == StatsDetail::counts) return;
  impl_->lane_ticks += ticks;
}

nlohmann::json RunStats::collect(MPI_Comm comm) const {
  const Impl& s = *impl_;
  if (s.detail == StatsDetail::counts) {
    NameTotals by_name;
    for (const auto& w : s.workers) {
      w->names.for_each(
          [&](const obs::TaskTimeTable::Entry& e) { by_name[e.name].first += e.count; });
    }
    RankSums all;
    for (const nlohmann::json& r : allgather_json(share_of(by_name, s.messages, s.bytes), comm)) {
      all.add(r);
    }
    nlohmann::json tasks = nlohmann::json::object();
    for (const auto& [name, totals] : all.by_name) tasks[name] = {{"count", totals.first}};
    return {{"tasks", tasks}, {"messages", all.messages}, {"bytes", all.bytes}};
  }
  // Intervals stay in ticks; lengths are converted once they are summed.
  const std::int64_t lo = s.start_ticks;
  const std::int64_t hi = s.stop_ticks >= 0 ? s.stop_ticks : base::fast_ticks();
  const base::TickCalibration clock(s.reference);
  const std::int64_t wall_ns = clock.duration_ns(std::max<std::int64_t>(hi - lo, 0));
  int rank = 0;
  ::tessera::detail::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");

  // This rank's share, as JSON so ranks with different task names combine simply.
  NameTotals by_name;
  std::vector<obs::Interval> busy;
  nlohmann::json threads = nlohmann::json::array();
  for (int t = 0; t < s.threads; ++t) {
    const Impl::WorkerState& w = *s.workers[t];
    std::int64_t exec_ticks = 0;
    w.names.for_each([&](const obs::TaskTimeTable::Entry& e) {
      auto& [count, total] = by_name[e.name];
      count += e.count;
      total += clock.duration_ns(e.total);
      exec_ticks += e.total;
    });
    const std::int64_t exec_ns = clock.duration_ns(exec_ticks);
    std::vector<obs::Interval> spans;
    spans.reserve(w.spans.size());
    w.spans.for_each([&](const obs::Interval& i) { spans.push_back(i); });
    const std::vector<obs::Interval> clipped = obs::clip_intervals(spans, lo, hi);
    const std::int64_t comm_ns = t == 0 ? clock.duration_ns(s.lane_ticks) : 0;
    threads.push_back(
        {{"rank", rank},
         {"thread", t},
         {"exec_s", exec_ns * kSecondsPerNs},
         {"comm_s", comm_ns * kSecondsPerNs},
         {"idle_s", std::max<std::int64_t>(wall_ns - exec_ns - comm_ns, 0) * kSecondsPerNs}});
    busy.insert(busy.end(), clipped.begin(), clipped.end());
  }
  std::vector<obs::Interval> requests;
  requests.reserve(s.requests.size());
  s.requests.for_each([&](const obs::Interval& i) { requests.push_back(i); });
  const obs::OverlapTotals overlap_ticks =
      obs::measure_overlap(obs::clip_intervals(obs::merge_intervals(requests), lo, hi), busy);
  const obs::OverlapTotals overlap{clock.duration_ns(overlap_ticks.in_flight),
                                   clock.duration_ns(overlap_ticks.overlapped)};
  nlohmann::json local = share_of(by_name, s.messages, s.bytes);
  local["threads"] = threads;
  local["in_flight_ns"] = overlap.in_flight;
  local["overlapped_ns"] = overlap.overlapped;

  // Totals over ranks; in-flight time weights each rank's overlap.
  RankSums all;
  nlohmann::json all_threads = nlohmann::json::array();
  nlohmann::json ranks = nlohmann::json::array();
  obs::OverlapTotals all_overlap;
  for (const nlohmann::json& r : allgather_json(local, comm)) {
    all.add(r);
    for (const nlohmann::json& t : r["threads"]) all_threads.push_back(t);
    const obs::OverlapTotals rank_overlap{r["in_flight_ns"].get<std::int64_t>(),
                                          r["overlapped_ns"].get<std::int64_t>()};
    ranks.push_back({{"rank", ranks.size()},
                     {"in_flight_s", rank_overlap.in_flight * kSecondsPerNs},
                     {"overlap_fraction", rank_overlap.fraction()}});
    all_overlap.in_flight += rank_overlap.in_flight;
    all_overlap.overlapped += rank_overlap.overlapped;
  }
  nlohmann::json result_tasks = nlohmann::json::object();
  for (const auto& [name, totals] : all.by_name) {
    const double total_s = totals.second * kSecondsPerNs;
    result_tasks[name] = {{"count", totals.first},
                          {"total_s", total_s},
                          {"mean_s", totals.first ? total_s / totals.first : 0.0}};
  }
  return {{"tasks", result_tasks},
          {"threads", all_threads},
          {"overlap_fraction", all_overlap.fraction()},
          {"in_flight_s", all_overlap.in_flight * kSecondsPerNs},
          {"overlapped_s", all_overlap.overlapped * kSecondsPerNs},
          {"ranks", ranks},
          {"messages", all.messages},
          {"bytes", all.bytes}};
}

}  // namespace tessera
