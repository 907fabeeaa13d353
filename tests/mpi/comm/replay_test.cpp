// Iteration graphs with communication tasks: a ring exchange with two messages on one
// (peer, tag) channel and an all-reduce per iteration, recorded once and replayed, gives
// the results of submitting the same tasks every iteration.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/obs/run_stats.hpp"

namespace tessera {
namespace {

constexpr std::int64_t kModulus = 1000003;
constexpr int kWidth = 16;
// Iterations of the ring program: 100, or fewer in sanitizer trees (TESSERA_RING_ITERATIONS,
// set by tests/CMakeLists.txt; at least 60 for the mixed mode's ranges), where every
// iteration's all-reduce waits for ranks that the sanitizer slows many times over.
const int kIterations = [] {
  const char* env = std::getenv("TESSERA_RING_ITERATIONS");
  return env ? std::max(60, std::atoi(env)) : 100;
}();

struct RingResult {
  std::vector<std::int64_t> value;
  std::int64_t total = 0;
  std::vector<std::int64_t> totals;  // the all-reduced sum of every iteration
};

enum class Mode {
  submit,  // every iteration submitted
  replay,  // iterations [0, kIterations) replayed
  mixed,   // a few submitted, the middle replayed in two parts, a few submitted
};

// Each iteration: pack two buffers from `value` (the second first, the first after some
// busy work, so the second message's payload is ready first), send both to the right
// neighbour on one channel, receive both from the left one, combine them into `value`,
// all-reduce the sum of `value` (int64) and fold it back.
RingResult run_ring(RuntimeOptions options, Mode mode, RunStats* stats = nullptr) {
  Runtime rt(options);
  Comm comm(rt, MPI_COMM_WORLD);
  const int right = (comm.rank() + 1) % comm.size();
  const int left = (comm.rank() + comm.size() - 1) % comm.size();
  const TagSpace tags = comm.allocate_tags("replay-ring", 1);
  const std::size_t bytes = kWidth * sizeof(std::int64_t);
  RingResult r;
  r.value.resize(kWidth);
  r.totals.assign(kIterations, -1);
  for (int i = 0; i < kWidth; ++i) r.value[i] = comm.rank() * 1000 + i;
  std::vector<std::int64_t> out1(kWidth), out2(kWidth), in1(kWidth), in2(kWidth);
  Handle hv = rt.create_handle("value"), ho1 = rt.create_handle("out1"),
         ho2 = rt.create_handle("out2"), hi1 = rt.create_handle("in1"),
         hi2 = rt.create_handle("in2"), ht = rt.create_handle("total");

  // iteration_of(ctx): ctx.iteration() in a recording, the loop's counter otherwise.
  const auto submit_iteration = [&](auto iteration_of) {
    rt.submit("pack2", {read(hv), write(ho2)}, [&, iteration_of](TaskContext& ctx) {
      const std::int64_t it = iteration_of(ctx);
      for (int i = 0; i < kWidth; ++i) out2[i] = (r.value[i] * 3 + it) % kModulus;
    });
    rt.submit("pack1", {read(hv), write(ho1)}, [&, iteration_of](TaskContext& ctx) {
      volatile double spin = 0;
      for (int k = 0; k < 20000; ++k) spin = spin + 1e-9;
      const std::int64_t it = iteration_of(ctx);
      for (int i = 0; i < kWidth; ++i) out1[i] = (r.value[i] + 7 * it + 1) % kModulus;
    });
    comm.isend(ho1, out1.data(), bytes, right, tags.tag(0));
    comm.isend(ho2, out2.data(), bytes, right, tags.tag(0));
    comm.irecv(hi1, in1.data(), bytes, left, tags.tag(0));
    comm.irecv(hi2, in2.data(), bytes, left, tags.tag(0));
    rt.submit("combine", {readwrite(hv), read(hi1), read(hi2), write(ht)}, [&] {
      std::int64_t sum = 0;
      for (int i = 0; i < kWidth; ++i) {
        r.value[i] = (r.value[i] * 5 + in1[i] + 2 * in2[i]) % kModulus;
        sum += r.value[i];
      }
      r.total = sum;
    });
    comm.iallreduce(ht, &r.total, 1, MPI_INT64_T, MPI_SUM);
    rt.submit("fold", {readwrite(hv), read(ht)}, [&, iteration_of](TaskContext& ctx) {
      const std::int64_t it = iteration_of(ctx);
      r.totals[static_cast<std::size_t>(it)] = r.total;
      r.value[0] = (r.value[0] + r.total) % kModulus;
    });
  };
  const auto submit_range = [&](std::int64_t first, std::int64_t end) {
    for (std::int64_t it = first; it < end; ++it) {
      submit_iteration([it](TaskContext&) { return it; });
    }
  };

  IterationGraph graph;
  if (mode != Mode::submit) {
    rt.begin_recording();
    submit_iteration([](TaskContext& ctx) { return ctx.iteration(); });
    graph = rt.end_recording();
    EXPECT_EQ(graph.size(), 9u);
  }
  if (stats) {
    rt.set_observer(stats);
    comm.add_observer(stats);
    stats->start();
  }
  switch (mode) {
    case Mode::submit:
      submit_range(0, kIterations);
      break;
    case Mode::replay:
      rt.replay(graph, 0, kIterations);
      break;
    case Mode::mixed:
      submit_range(0, 3);
      rt.replay(graph, 3, 40);
      submit_range(43, 45);
      rt.replay(graph, 45, kIterations - 48);
      submit_range(kIterations - 3, kIterations);
      break;
  }
  rt.wait_all();
  if (stats) {
    stats->stop();
    rt.set_observer(nullptr);
  }
  const CommStats s = comm.stats();
  EXPECT_EQ(s.messages_sent, 2u * kIterations);
  EXPECT_EQ(s.messages_received, 2u * kIterations);
  EXPECT_EQ(s.collectives, static_cast<std::uint64_t>(kIterations));
  return r;
}

// The ring computed serially for every rank, as the oracle.
RingResult expected_ring(int rank, int size) {
  std::vector<std::vector<std::int64_t>> v(size, std::vector<std::int64_t>(kWidth));
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < kWidth; ++i) v[p][i] = p * 1000 + i;
  }
  RingResult r;
  r.totals.assign(kIterations, -1);
  for (std::int64_t it = 0; it < kIterations; ++it) {
    std::vector<std::vector<std::int64_t>> o1 = v, o2 = v;
    for (int p = 0; p < size; ++p) {
      for (int i = 0; i < kWidth; ++i) {
        o1[p][i] = (v[p][i] + 7 * it + 1) % kModulus;
        o2[p][i] = (v[p][i] * 3 + it) % kModulus;
      }
    }
    std::int64_t total = 0;
    for (int p = 0; p < size; ++p) {
      const int from = (p + size - 1) % size;
      for (int i = 0; i < kWidth; ++i) {
        v[p][i] = (v[p][i] * 5 + o1[from][i] + 2 * o2[from][i]) % kModulus;
        total += v[p][i];
      }
    }
    for (int p = 0; p < size; ++p) v[p][0] = (v[p][0] + total) % kModulus;
    r.totals[static_cast<std::size_t>(it)] = total;
    r.total = total;
  }
  r.value = v[rank];
  return r;
}

TEST(Replay, RingWithSharedChannelAndAllreduceMatchesSubmission) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const RingResult expected = expected_ring(rank, size);
  for (RuntimeOptions options :
       {RuntimeOptions{.sequential = true}, RuntimeOptions{.threads = 1},
        RuntimeOptions{.threads = 2, .steal_seed = 7}, RuntimeOptions{.threads = 3},
        RuntimeOptions{.threads = 2, .replay_schedule = ReplaySchedule::balanced}}) {
    for (Mode mode : {Mode::submit, Mode::replay, Mode::mixed}) {
      const RingResult got = run_ring(options, mode);
      const std::string what =
          "threads " + std::to_string(options.threads) +
          (options.sequential ? " (sequential)" : "") +
          (options.replay_schedule == ReplaySchedule::balanced ? " (balanced)" : "") + ", mode " +
          std::to_string(static_cast<int>(mode));
      EXPECT_EQ(got.value, expected.value) << what;
      EXPECT_EQ(got.totals, expected.totals) << what;
      EXPECT_EQ(got.total, expected.total) << what;
    }
  }
}

TEST(Replay, RunStatsCountReplayedTasksAndMessages) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  RunStats stats(2);
  run_ring(RuntimeOptions{.threads = 2}, Mode::replay, &stats);
  const nlohmann::json j = stats.collect(MPI_COMM_WORLD);
  const auto count = [&](const char* name) {
    return j["tasks"].contains(name) ? j["tasks"][name]["count"].get<std::uint64_t>() : 0;
  };
  const std::uint64_t per_name = static_cast<std::uint64_t>(kIterations) * size;
  EXPECT_EQ(count("pack1"), per_name) << j.dump();
  EXPECT_EQ(count("pack2"), per_name);
  EXPECT_EQ(count("combine"), per_name);
  EXPECT_EQ(count("fold"), per_name);
  EXPECT_EQ(count("isend"), 2 * per_name);
  EXPECT_EQ(count("irecv"), 2 * per_name);
  EXPECT_EQ(count("allreduce"), per_name);
  EXPECT_EQ(j["messages"].get<std::uint64_t>(), 2 * per_name);
}

// A fixed schedule runs a thread's share of a replayed iteration in a fixed order, here:
// the receive, the task reading it, then an unrelated chain that produces and sends what
// the right neighbour receives. Run strictly in that order, every rank would wait for its
// left neighbour's message, which that rank sends only after its own wait: a deadlock.
// While the task reached waits, the replay must run the later chain (with two threads,
// the worker runs the task reading the message and the main thread the rest).
TEST(Replay, OneThreadRunsLaterTasksWhileTheTaskReachedWaitsForAMessage) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  constexpr int kCount = 50;
  for (RuntimeOptions options : {RuntimeOptions{.threads = 1, .hang_timeout_s = 10},
                                 RuntimeOptions{.threads = 2, .hang_timeout_s = 10},
                                 RuntimeOptions{.sequential = true, .hang_timeout_s = 10}}) {
    Runtime rt(options);
    Comm comm(rt, MPI_COMM_WORLD);
    const TagSpace tags = comm.allocate_tags("replay-order", 1);
    std::int64_t in = -1, out = -1;
    std::vector<std::int64_t> seen(kCount, -1);
    Handle hin = rt.create_handle("in"), hout = rt.create_handle("out"),
           hseen = rt.create_handle("seen");
    rt.begin_recording();
    comm.irecv(hin, &in, sizeof in, left, tags.tag(0));
    rt.submit("consume", {read(hin), write(hseen)},
              [&](TaskContext& ctx) { seen[static_cast<std::size_t>(ctx.iteration())] = in; });
    rt.submit("produce", {write(hout)},
              [&](TaskContext& ctx) { out = rank * 1000 + ctx.iteration(); });
    comm.isend(hout, &out, sizeof out, right, tags.tag(0));
    const IterationGraph g = rt.end_recording();
    rt.replay(g, 0, kCount);
    for (int i = 0; i < kCount; ++i) {
      EXPECT_EQ(seen[static_cast<std::size_t>(i)], left * 1000 + i)
          << "iteration " << i << (options.sequential ? ", sequential" : "");
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A receive of the wrong size in a replayed graph fails every iteration, and the lane
// throws each failure once. The replay must still run every iteration (peers wait for
// their messages, and requests in flight hold tokens pointing into its instances) and
// report the first failure at the end, as submitting the same tasks does.
TEST(Replay, ReceiveOfTheWrongSizeInAReplayIsReportedAndEveryMessageFlows) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  constexpr int kCount = 20;
  {
    Runtime rt(RuntimeOptions{.threads = 1, .hang_timeout_s = 10});
    Comm comm(rt, MPI_COMM_WORLD);
    const TagSpace tags = comm.allocate_tags("replay-size", 1);
    Handle hs = rt.create_handle("s"), hr = rt.create_handle("r");
    double out[2] = {1, 2}, in[4] = {};
    rt.begin_recording();
    comm.isend(hs, out, sizeof out, (rank + 1) % size, tags.tag(0));
    comm.irecv(hr, in, sizeof in, (rank + size - 1) % size, tags.tag(0));
    const IterationGraph g = rt.end_recording();
    try {
      rt.replay(g, 0, kCount);
      ADD_FAILURE() << "expected a size mismatch";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("expected 32 bytes, received 16"), std::string::npos)
          << e.what();
    }
    // Later failures of the same kind may still be reported by the next waits.
    for (int attempt = 0; attempt <= kCount; ++attempt) {
      try {
        rt.wait_all();
        break;
      } catch (const std::runtime_error&) {
      }
    }
    EXPECT_EQ(rt.tasks_completed(), rt.tasks_submitted());
    EXPECT_EQ(comm.stats().messages_sent, static_cast<std::uint64_t>(kCount));
    EXPECT_EQ(comm.stats().messages_received, static_cast<std::uint64_t>(kCount));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace tessera
