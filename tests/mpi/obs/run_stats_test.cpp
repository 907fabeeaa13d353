// RunStats on 1, 2 and 4 ranks: task counts summed over ranks, one time entry per
// (rank, thread), messages and bytes, and the overlap fraction on a program whose
// overlap is known by construction.
#include "tessera/obs/run_stats.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <thread>

#include "observed_program.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/obs/trace_recorder.hpp"

namespace tessera::obs_test {
namespace {

TEST(RunStats, CountsTasksThreadsMessagesAndBytesOverAllRanks) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const ProgramShape shape;
  for (const RuntimeOptions& options :
       {RuntimeOptions{.sequential = true}, RuntimeOptions{.threads = 2}}) {
    const ProgramRun run = run_observed_program(options, shape, "");
    const nlohmann::json& s = run.stats;
    const auto count = [&](const char* name) {
      return s.at("tasks").at(name).at("count").get<std::uint64_t>();
    };
    const auto per_round = static_cast<std::uint64_t>(shape.rounds * size);
    EXPECT_EQ(count("pack"), per_round);
    EXPECT_EQ(count("isend"), per_round);
    EXPECT_EQ(count("irecv"), per_round);
    EXPECT_EQ(count("update"), per_round);
    EXPECT_EQ(count("observe"), per_round * shape.readers);
    EXPECT_EQ(count("use_sum"), static_cast<std::uint64_t>(shape.rounds / 4 * size));
    for (const auto& [name, entry] : s.at("tasks").items()) {
      EXPECT_GE(entry.at("total_s").get<double>(), 0.0) << name;
      EXPECT_DOUBLE_EQ(entry.at("mean_s").get<double>() * entry.at("count").get<double>(),
                       entry.at("total_s").get<double>())
          << name;
    }
    const int threads = options.sequential ? 1 : options.threads;
    ASSERT_EQ(s.at("threads").size(), static_cast<std::size_t>(size * threads));
    for (std::size_t i = 0; i < s.at("threads").size(); ++i) {
      const auto& t = s.at("threads").at(i);
      EXPECT_EQ(t.at("rank").get<int>(), static_cast<int>(i) / threads);
      EXPECT_EQ(t.at("thread").get<int>(), static_cast<int>(i) % threads);
      EXPECT_GE(t.at("exec_s").get<double>(), 0.0);
      EXPECT_GE(t.at("idle_s").get<double>(), 0.0);
      if (t.at("thread").get<int>() != 0) {
        EXPECT_EQ(t.at("comm_s").get<double>(), 0.0);
      }
    }
    EXPECT_EQ(s.at("messages").get<std::uint64_t>(), per_round);
    EXPECT_EQ(s.at("bytes").get<std::uint64_t>(), per_round * shape.width * sizeof(double));
    const double overlap = s.at("overlap_fraction").get<double>();
    EXPECT_GE(overlap, 0.0);
    EXPECT_LE(overlap, 1.0);
    EXPECT_EQ(s.at("ranks").size(), static_cast<std::size_t>(size));
  }
}

TEST(RunStats, CountsDetailCountsTasksAndMessagesWithoutTimingThem) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(RunStats(1, StatsDetail::counts).events(), unsigned{kObserveCounted});
  EXPECT_EQ(RunStats(1).events(), unsigned{kObserveExecuted});
  const ProgramShape shape;
  for (const RuntimeOptions& options :
       {RuntimeOptions{.sequential = true}, RuntimeOptions{.threads = 2}}) {
    const ProgramRun full = run_observed_program(options, shape, "");
    const ProgramRun counts = run_observed_program(options, shape, "", StatsDetail::counts);
    const nlohmann::json& s = counts.stats;
    ASSERT_EQ(s.at("tasks").size(), full.stats.at("tasks").size());
    for (const auto& [name, entry] : full.stats.at("tasks").items()) {
      EXPECT_EQ(s.at("tasks").at(name), nlohmann::json({{"count", entry.at("count")}})) << name;
    }
    EXPECT_EQ(s.at("messages"), full.stats.at("messages"));
    EXPECT_EQ(s.at("bytes"), full.stats.at("bytes"));
    for (const char* timed : {"threads", "overlap_fraction", "in_flight_s", "ranks"}) {
      EXPECT_FALSE(s.contains(timed)) << timed;
    }
    EXPECT_EQ(counts.final_value, full.final_value);
  }
}

// Counts completions for the task that must outlast every request.
class CompletionCounter : public CommObserver {
 public:
  void on_post(const CommEvent&) override { posted.fetch_add(1); }
  void on_complete(const CommEvent&) override { completed.fetch_add(1); }
  void on_lane_time(std::int64_t) override {}
  std::atomic<int> posted{0};
  std::atomic<int> completed{0};
};

TEST(RunStats, OverlapIsOneWhenATaskRunsThroughEveryRequest) {
  // A worker task starts before any request is posted and ends only after every
  // request completed (it watches the lane's completions), so all in-flight time is
  // overlapped by construction, whatever the timing.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  RunStats stats(2);
  CompletionCounter counter;
  Runtime rt(RuntimeOptions{.threads = 2});
  // Through MPI, a receive completes in a poll after its post, so it is in flight for a
  // while; on a ring it completes in its post when the message arrived first.
  Comm comm(rt, MPI_COMM_WORLD, Intranode::mpi);
  comm.add_observer(&stats);  // before the counter: stats stamps completion first
  comm.add_observer(&counter);
  rt.set_observer(&stats);
  stats.start();
  const TagSpace tags = comm.allocate_tags("overlap", 1);
  std::atomic<bool> started{false};
  Handle busy = rt.create_handle("busy"), hs = rt.create_handle("s"), hr = rt.create_handle("r");
  rt.submit("span", {write(busy)}, [&] {
    started.store(true);
    while (counter.completed.load() < 2) std::this_thread::yield();
  });
  // The runtime gives "span" to the worker; the main thread must not take it itself.
  while (!started.load()) std::this_thread::yield();
  double out = rank, in = -1;
  comm.isend(hs, &out, sizeof out, (rank + 1) % size, tags.tag(0));
  comm.irecv(hr, &in, sizeof in, (rank + size - 1) % size, tags.tag(0));
  rt.wait_all();
  stats.stop();
  const nlohmann::json s = stats.collect(MPI_COMM_WORLD);
  EXPECT_EQ(in, (rank + size - 1) % size);
  EXPECT_GT(s.at("in_flight_s").get<double>(), 0.0);
  EXPECT_EQ(s.at("overlap_fraction").get<double>(), 1.0);
  EXPECT_EQ(s.at("overlapped_s").get<double>(), s.at("in_flight_s").get<double>());
}

// Like RunStats: finished operations only.
class CompletionOnlyCounter : public CompletionCounter {
 public:
  bool wants_posts() const override { return false; }
};

TEST(CommObserver, OneNotWantingPostsSeesEveryCompletionAndNoPost) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const Intranode intranode : {Intranode::rings, Intranode::mpi}) {
    CompletionCounter all;
    CompletionOnlyCounter completions;
    Runtime rt(RuntimeOptions{.threads = 2});
    Comm comm(rt, MPI_COMM_WORLD, intranode);
    comm.add_observer(&completions);
    comm.add_observer(&all);
    const TagSpace tags = comm.allocate_tags("posts", 1);
    Handle hs = rt.create_handle("s"), hr = rt.create_handle("r");
    double out = rank, in = -1;
    comm.isend(hs, &out, sizeof out, (rank + 1) % size, tags.tag(0));
    comm.irecv(hr, &in, sizeof in, (rank + size - 1) % size, tags.tag(0));
    rt.wait_all();
    EXPECT_EQ(in, (rank + size - 1) % size);
    EXPECT_EQ(all.posted.load(), 2);
    EXPECT_EQ(all.completed.load(), 2);
    EXPECT_EQ(completions.posted.load(), 0);
    EXPECT_EQ(completions.completed.load(), 2);
  }
}

TEST(RunStats, RejectsANonPositiveThreadCount) {
  EXPECT_THROW(RunStats(0), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::obs_test
