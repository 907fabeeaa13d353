// Iteration graphs: a replay gives the results of submitting the recorded tasks again.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "tessera/base/tick_clock.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

// A two-stage stencil on a ring of cells, double-buffered: every iteration reads a's
// neighbours into b, then b's into a.
std::vector<std::int64_t> run_stencil(int threads, bool replay, int cells, int iterations,
                                      ReplaySchedule schedule = ReplaySchedule::fixed,
                                      WaitPolicy wait = WaitPolicy::active) {
  Runtime rt(RuntimeOptions{.threads = threads, .wait_policy = wait, .replay_schedule = schedule});
  std::vector<std::int64_t> a(cells), b(cells);
  for (int i = 0; i < cells; ++i) a[i] = i * 7 + 1;
  std::vector<Handle> ha, hb;
  for (int i = 0; i < cells; ++i) {
    ha.push_back(rt.create_handle("a"));
    hb.push_back(rt.create_handle("b"));
  }
  const auto submit_iteration = [&](auto iteration_of) {
    for (int i = 0; i < cells; ++i) {
      const int l = (i + cells - 1) % cells, r = (i + 1) % cells;
      rt.submit("ab", {read(ha[l]), read(ha[i]), read(ha[r]), write(hb[i])},
                [&, i, l, r, iteration_of](TaskContext& ctx) {
                  b[i] = a[l] + 3 * a[i] - a[r] + iteration_of(ctx);
                });
    }
    for (int i = 0; i < cells; ++i) {
      const int l = (i + cells - 1) % cells, r = (i + 1) % cells;
      rt.submit("ba", {read(hb[l]), read(hb[i]), read(hb[r]), write(ha[i])},
                [&, i, l, r](TaskContext&) { a[i] = (b[l] ^ b[r]) + b[i] % 1000003; });
    }
  };
  if (replay) {
    rt.begin_recording();
    submit_iteration([](TaskContext& ctx) { return ctx.iteration(); });
    const IterationGraph g = rt.end_recording();
    EXPECT_EQ(g.size(), static_cast<std::size_t>(2 * cells));
    rt.replay(g, 0, iterations);
  } else {
    for (int it = 0; it < iterations; ++it) {
      submit_iteration([it](TaskContext&) { return static_cast<std::int64_t>(it); });
    }
    rt.wait_all();
  }
  return a;
}

constexpr ReplaySchedule kSchedules[] = {ReplaySchedule::fixed, ReplaySchedule::balanced};

const char* name_of(ReplaySchedule schedule) {
  return schedule == ReplaySchedule::fixed ? "fixed" : "balanced";
}

TEST(IterationGraph, ReplayMatchesSubmission) {
  const auto expected = run_stencil(1, false, 17, 50);
  for (ReplaySchedule schedule : kSchedules) {
    for (int threads : {1, 2, 3, 4}) {
      EXPECT_EQ(run_stencil(threads, true, 17, 50, schedule), expected)
          << threads << " threads, " << name_of(schedule);
    }
  }
}

// Passive waiting only changes how idle threads wait (the main thread sleeps between polls
// while a fixed replay's tasks run elsewhere): the same results.
TEST(IterationGraph, PassiveWaitingMatchesSubmission) {
  const auto expected = run_stencil(1, false, 17, 50);
  for (ReplaySchedule schedule : kSchedules) {
    for (int threads : {2, 3}) {
      EXPECT_EQ(run_stencil(threads, true, 17, 50, schedule, WaitPolicy::passive), expected)
          << threads << " threads, " << name_of(schedule);
      EXPECT_EQ(run_stencil(threads, false, 17, 50, schedule, WaitPolicy::passive), expected)
          << threads << " threads, submitted";
    }
  }
}

// The default policy is the environment's: TESSERA_WAIT_POLICY names it (active when unset),
// and a runtime refuses any other value rather than guess.
TEST(IterationGraph, WaitPolicyComesFromTheEnvironmentByDefault) {
  const char* saved = std::getenv("TESSERA_WAIT_POLICY");
  const std::string restore = saved ? saved : "";
  unsetenv("TESSERA_WAIT_POLICY");
  EXPECT_EQ(wait_policy_from_environment(), WaitPolicy::active);
  setenv("TESSERA_WAIT_POLICY", "passive", 1);
  EXPECT_EQ(wait_policy_from_environment(), WaitPolicy::passive);
  EXPECT_EQ(run_stencil(2, true, 17, 20, ReplaySchedule::fixed, WaitPolicy::environment),
            run_stencil(1, false, 17, 20));
  setenv("TESSERA_WAIT_POLICY", "busy", 1);
  EXPECT_THROW(wait_policy_from_environment(), std::invalid_argument);
  EXPECT_THROW(Runtime(RuntimeOptions{.threads = 2}), std::invalid_argument);
  if (saved) {
    setenv("TESSERA_WAIT_POLICY", restore.c_str(), 1);
  } else {
    unsetenv("TESSERA_WAIT_POLICY");
  }
}

// Two cells whose tasks each read both cells: every task waits for one task per thread,
// so at every step for many steps a thread waits for the other's task (balanced: claims
// the successor the other thread releases; fixed: reads its completion count), and, with
// four threads, with more threads than cores.
// Iterations of the crossing-chains replay: enough for the replay's three iteration slots
// to wrap around thousands of times. The test command sets fewer (tests/CMakeLists.txt,
// STRESS_COUNTS), most of all under a sanitizer, where four spinning threads run tens of
// times slower; the slots still wrap hundreds of times. The `long` suite runs this count.
int crossing_iterations() {
  if (const char* env = std::getenv("TESSERA_CROSSING_ITERATIONS")) return std::atoi(env);
  return 20000;
}

TEST(IterationGraph, CrossingChainsReplayedManyTimesMatchSubmission) {
  const int iterations = crossing_iterations();
  const auto expected = run_stencil(1, false, 2, iterations);
  for (ReplaySchedule schedule : kSchedules) {
    for (int threads : {2, 4}) {
      EXPECT_EQ(run_stencil(threads, true, 2, iterations, schedule), expected)
          << threads << " threads, " << name_of(schedule);
    }
  }
}

// A fixed schedule runs every instance of a recorded task on one thread, spreads the
// tasks evenly, and keeps a chain of tasks on the thread of its first task.
TEST(IterationGraph, FixedScheduleRunsEachTaskOnOneThreadAndKeepsChainsTogether) {
  constexpr int kChains = 4, kLength = 3, kIterations = 200;
  Runtime rt(RuntimeOptions{.threads = 2});
  std::vector<Handle> h;
  for (int c = 0; c < kChains; ++c) h.push_back(rt.create_handle("chain"));
  // worker[task][iteration], each written by the instance itself.
  std::vector<std::vector<int>> worker(kChains * kLength, std::vector<int>(kIterations, -1));
  rt.begin_recording();
  for (int c = 0; c < kChains; ++c) {
    for (int k = 0; k < kLength; ++k) {
      rt.submit("link", {readwrite(h[c])}, [&worker, task = c * kLength + k](TaskContext& ctx) {
        worker[task][static_cast<std::size_t>(ctx.iteration())] = ctx.worker();
      });
    }
  }
  rt.replay(rt.end_recording(), 0, kIterations);
  std::vector<int> tasks_on(2, 0);
  for (int c = 0; c < kChains; ++c) {
    const int w = worker[c * kLength][0];
    ASSERT_TRUE(w == 0 || w == 1) << w;
    ++tasks_on[w];
    for (int k = 0; k < kLength; ++k) {
      for (int it = 0; it < kIterations; ++it) {
        ASSERT_EQ(worker[c * kLength + k][it], w) << "chain " << c << " link " << k << " it " << it;
      }
    }
  }
  EXPECT_EQ(tasks_on, (std::vector<int>{2, 2}));
}

// One thread walks a fixed-schedule replay in the recorded graph's order: a compute task
// that a communication task waits for (a pack before its send) runs as soon as its own
// inputs exist, before other ready compute submitted earlier, so the message leaves as
// soon as its data do. Here: two blocks computed, block 0's face packed and sent, block
// 1's computed after; submission order alone would compute both blocks first.
TEST(IterationGraph, FixedScheduleRunsAPackAndItsSendRightAfterTheWorkTheyNeed) {
  Runtime rt(RuntimeOptions{.threads = 1});
  const Handle block0 = rt.create_handle("block0"), block1 = rt.create_handle("block1");
  const Handle face = rt.create_handle("face");
  std::vector<std::string> ran;
  rt.begin_recording();
  rt.submit("compute0", {readwrite(block0)}, [&] { ran.emplace_back("compute0"); });
  rt.submit("compute1", {readwrite(block1)}, [&] { ran.emplace_back("compute1"); });
  rt.submit("pack0", {read(block0), write(face)}, [&] { ran.emplace_back("pack0"); });
  rt.submit(
      "send0", {read(face)}, [&] { ran.emplace_back("send0"); },
      TaskAttributes(Priority::normal, {}, /*main_only=*/true));
  const IterationGraph g = rt.end_recording();
  rt.replay(g, 0, 2);
  const std::vector<std::string> one{"compute0", "pack0", "send0", "compute1"};
  std::vector<std::string> expected = one;
  expected.insert(expected.end(), one.begin(), one.end());
  EXPECT_EQ(ran, expected);
}

// ---------------------------------------------------------------------------------------
// Random iteration bodies: replay(first, count) equals submitting the body count times.

bool is_exclusive(AccessMode m) {
  return m == AccessMode::write || m == AccessMode::readwrite;
}

struct RandomTask {
  std::vector<std::pair<int, AccessMode>> accesses;  // handles may repeat
  std::uint64_t salt = 0;
  int spin = 0;               // busy work, to perturb the schedule
  bool with_context = false;  // body f(TaskContext&) rather than f()
  bool uses_iteration = false;
  enum class Hold { none, at_once, by_later } hold = Hold::none;
  std::vector<int> releases;  // tasks (of the same iteration) whose hold this one releases
  TaskAttributes attributes;
};

struct RandomBody {
  int handles = 1;
  std::vector<RandomTask> tasks;
};

// Whether the runtime orders b after a: a shared handle that one of them (after merging
// its repeated accesses) accesses exclusively.
bool conflict(const RandomTask& a, const RandomTask& b) {
  for (auto& [ha, ma] : a.accesses) {
    for (auto& [hb, mb] : b.accesses) {
      if (ha != hb) continue;
      bool ea = false, eb = false;
      for (auto& [h, m] : a.accesses) ea |= h == ha && is_exclusive(m);
      for (auto& [h, m] : b.accesses) eb |= h == hb && is_exclusive(m);
      if (ea || eb) return true;
    }
  }
  return false;
}

RandomBody random_body(std::mt19937_64& rng) {
  RandomBody b;
  b.handles = 1 + static_cast<int>(rng() % 8);
  const int n = 1 + static_cast<int>(rng() % 30);
  for (int t = 0; t < n; ++t) {
    RandomTask task;
    const int nacc = static_cast<int>(rng() % 7);  // 0..6: past the inline records
    for (int a = 0; a < nacc; ++a) {
      const AccessMode modes[] = {AccessMode::read, AccessMode::write, AccessMode::readwrite};
      task.accesses.emplace_back(static_cast<int>(rng() % b.handles), modes[rng() % 3]);
    }
    task.salt = rng();
    task.spin = rng() % 5 == 0 ? static_cast<int>(rng() % 3000) : 0;
    task.with_context = rng() % 3 != 0;
    task.uses_iteration = task.with_context && rng() % 2 == 0;
    if (rng() % 8 == 0) task.attributes.priority = Priority::high;
    if (rng() % 8 == 0) task.attributes.main_thread_only = true;
    b.tasks.push_back(std::move(task));
  }
  // Holds: a task released by a later one that neither conflicts with it nor follows a
  // task that does (so even the sequential runtime, which runs each task at submission,
  // reaches the releaser), else released at once by its own body.
  for (int t = 0; t < n; ++t) {
    RandomTask& task = b.tasks[t];
    if (!task.with_context || rng() % 4 != 0) continue;
    std::vector<int> candidates;
    for (int r = t + 1; r < n && !conflict(task, b.tasks[r]); ++r) candidates.push_back(r);
    if (candidates.empty() || rng() % 4 == 0) {
      task.hold = RandomTask::Hold::at_once;
      continue;
    }
    const int r = candidates[rng() % candidates.size()];
    task.hold = RandomTask::Hold::by_later;
    b.tasks[r].with_context = true;  // a releaser learns its iteration from its context
    b.tasks[r].releases.push_back(t);
  }
  return b;
}

// One execution of a random body, shared by its task bodies (which never modify their
// captures: a recorded body runs once per iteration, possibly concurrently).
struct Execution {
  struct HoldSlot {
    std::atomic<int> state{0};  // 1: the held task stored its token; 2: the releaser came
    CompletionToken token;
  };
  Execution(Runtime& runtime, const RandomBody& b, std::int64_t first_iteration, std::int64_t count)
      : rt(runtime),
        body(b),
        first(first_iteration),
        width(b.tasks.size()),
        values(b.handles),
        slots(static_cast<std::size_t>(count) * b.tasks.size()),
        runs(static_cast<std::size_t>(count) * b.tasks.size()) {
    for (int h = 0; h < b.handles; ++h) values[h] = 1000 + 7 * static_cast<std::uint64_t>(h);
    for (int h = 0; h < b.handles; ++h) handles.push_back(rt.create_handle("h"));
    for (auto& r : runs) r.store(0);
  }

  // The body of task t in `iteration` (ctx is null for bodies without a context).
  void run(int t, std::int64_t iteration, TaskContext* ctx) {
    const RandomTask& task = body.tasks[t];
    const std::size_t k = static_cast<std::size_t>(iteration - first);
    if (ctx) {
      if (iteration < first || k >= runs.size() / width) {
        bad_iteration.store(true);
        return;
      }
      runs[k * width + t].fetch_add(1);
    }
    volatile int sink = 0;
    for (int i = 0; i < task.spin; ++i) sink = sink + i;
    std::uint64_t acc = task.salt;
    for (auto& [h, m] : task.accesses) {
      if (m != AccessMode::write) acc = acc * 31 + values[h];
    }
    if (task.uses_iteration) acc += static_cast<std::uint64_t>(iteration);
    for (auto& [h, m] : task.accesses) {
      if (m == AccessMode::write) values[h] = acc;
      if (m == AccessMode::readwrite) values[h] = values[h] * 31 + acc + 1;
    }
    if (!ctx) return;  // bodies without a context neither hold nor release
    if (task.hold == RandomTask::Hold::at_once) rt.complete(ctx->hold());
    if (task.hold == RandomTask::Hold::by_later) {
      HoldSlot& slot = slots[k * width + t];
      slot.token = ctx->hold();
      if (slot.state.exchange(1, std::memory_order_acq_rel) == 2)
        rt.complete(std::move(slot.token));
    }
    for (int held : task.releases) {
      HoldSlot& slot = slots[k * width + held];
      if (slot.state.exchange(2, std::memory_order_acq_rel) == 1)
        rt.complete(std::move(slot.token));
    }
  }

  // Submits task t of `iteration`: in a recording the context tells the iteration.
  void submit(int t, std::int64_t iteration, bool recording) {
    const RandomTask& task = body.tasks[t];
    std::vector<Access> accesses;
    for (auto& [h, m] : task.accesses) accesses.push_back(Access{handles[h], m});
    const std::span<const Access> list(accesses);
    if (!task.with_context) {
      rt.submit(
          "plain", list, [this, t] { run(t, 0, nullptr); }, task.attributes);
    } else if (recording) {
      rt.submit(
          "context", list, [this, t](TaskContext& ctx) { run(t, ctx.iteration(), &ctx); },
          task.attributes);
    } else {
      rt.submit(
          "context", list, [this, t, iteration](TaskContext& ctx) { run(t, iteration, &ctx); },
          task.attributes);
    }
  }

  // Every context body ran exactly once per iteration, and saw a replayed iteration.
  bool ran_once() const {
    if (bad_iteration.load()) return false;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (body.tasks[i % width].with_context && runs[i].load() != 1) return false;
    }
    return true;
  }

  Runtime& rt;
  const RandomBody& body;
  const std::int64_t first;
  const std::size_t width;
  std::vector<std::uint64_t> values;
  std::vector<Handle> handles;
  std::vector<HoldSlot> slots;
  std::vector<std::atomic<int>> runs;
  std::atomic<bool> bad_iteration{false};
};

std::vector<std::uint64_t> submit_iterations(Runtime& rt, const RandomBody& b, std::int64_t first,
                                             std::int64_t count, bool& ran_once) {
  Execution e(rt, b, first, count);
  for (std::int64_t it = first; it < first + count; ++it) {
    for (std::size_t t = 0; t < b.tasks.size(); ++t) e.submit(static_cast<int>(t), it, false);
  }
  rt.wait_all();
  ran_once = e.ran_once();
  return e.values;
}

// Records the body once and replays it, in one replay or split in two.
std::vector<std::uint64_t> replay_iterations(Runtime& rt, const RandomBody& b, std::int64_t first,
                                             std::int64_t count, std::int64_t split,
                                             bool& ran_once) {
  Execution e(rt, b, first, count);
  const std::uint64_t submitted = rt.tasks_submitted();
  rt.begin_recording();
  for (std::size_t t = 0; t < b.tasks.size(); ++t) e.submit(static_cast<int>(t), 0, true);
  const IterationGraph g = rt.end_recording();
  EXPECT_EQ(g.size(), b.tasks.size());
  EXPECT_EQ(rt.tasks_submitted(), submitted) << "a recording submits no task";
  rt.replay(g, first, split);
  rt.replay(g, first + split, count - split);
  EXPECT_EQ(rt.tasks_submitted(), submitted + static_cast<std::uint64_t>(count) * b.tasks.size());
  EXPECT_EQ(rt.tasks_completed(), rt.tasks_submitted()) << "replay returned before its tasks";
  ran_once = e.ran_once();
  return e.values;
}

int replay_program_count() {
  if (const char* env = std::getenv("TESSERA_REPLAY_PROGRAMS")) return std::atoi(env);
  return 3000;
}

TEST(IterationGraph, RandomBodiesReplayAsSubmittedCountTimes) {
  const int programs = replay_program_count();
  std::mt19937_64 rng(20261122);
  Runtime reference(RuntimeOptions{.sequential = true});
  struct Config {
    int threads;
    bool sequential;
    ReplaySchedule schedule;
  };
  const Config configs[] = {
      {1, false, ReplaySchedule::fixed},    {2, false, ReplaySchedule::fixed},
      {4, false, ReplaySchedule::fixed},    {2, false, ReplaySchedule::balanced},
      {4, false, ReplaySchedule::balanced}, {1, true, ReplaySchedule::fixed}};
  std::vector<std::unique_ptr<Runtime>> runtimes;
  const std::int64_t counts[] = {0, 1, 2, 3, 4, 5, 17};
  int mismatches = 0;
  for (int p = 0; p < programs && mismatches <= 5; ++p) {
    if (p % 100 == 0) {
      runtimes.clear();
      for (const Config& c : configs) {
        runtimes.push_back(
            std::make_unique<Runtime>(RuntimeOptions{.threads = c.threads,
                                                     .sequential = c.sequential,
                                                     .steal_seed = rng() | 1,
                                                     .hang_timeout_s = 60,
                                                     .replay_schedule = c.schedule}));
      }
    }
    const RandomBody body = random_body(rng);
    const std::int64_t count = counts[rng() % std::size(counts)];
    const std::int64_t first = static_cast<std::int64_t>(rng() % 41) - 20;
    const std::int64_t split =
        rng() % 3 == 0 ? static_cast<std::int64_t>(rng() % (count + 1)) : count;
    bool reference_once = false;
    const auto expected = submit_iterations(reference, body, first, count, reference_once);
    ASSERT_TRUE(reference_once) << "program " << p;
    for (std::size_t k = 0; k < runtimes.size(); ++k) {
      bool once = false;
      const auto got = replay_iterations(*runtimes[k], body, first, count, split, once);
      if (got != expected || !once) {
        ++mismatches;
        ADD_FAILURE() << "program " << p << " (" << body.tasks.size() << " tasks, " << body.handles
                      << " handles), iterations [" << first << ", " << first + count
                      << ") split at " << first + split << ": "
                      << (once ? "" : "a task did not run exactly once per iteration; ")
                      << (got == expected ? "same data" : "different data") << " with "
                      << configs[k].threads << " threads"
                      << (configs[k].sequential ? " (sequential)" : "");
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// ---------------------------------------------------------------------------------------
// Replays in a row, and tasks submitted around them.

// x and y on two handles; the body: x = x * 31 + y + iteration, then y = y * 7 + x.
struct Pair {
  std::uint64_t x = 3, y = 5;
};

void submit_body(Runtime& rt, Pair& d, Handle hx, Handle hy, bool recording, std::int64_t it) {
  if (recording) {
    rt.submit("x", {readwrite(hx), read(hy)}, [&d](TaskContext& ctx) {
      d.x = d.x * 31 + d.y + static_cast<std::uint64_t>(ctx.iteration());
    });
  } else {
    rt.submit("x", {readwrite(hx), read(hy)},
              [&d, it](TaskContext&) { d.x = d.x * 31 + d.y + static_cast<std::uint64_t>(it); });
  }
  rt.submit("y", {read(hx), readwrite(hy)}, [&d] { d.y = d.y * 7 + d.x; });
}

// Submissions and iteration blocks, each block replayed or submitted.
Pair run_sequence(RuntimeOptions options, bool replay) {
  Runtime rt(options);
  Pair d;
  Handle hx = rt.create_handle("x"), hy = rt.create_handle("y");
  IterationGraph g;
  if (replay) {
    rt.begin_recording();
    EXPECT_TRUE(rt.recording());
    submit_body(rt, d, hx, hy, true, 0);
    g = rt.end_recording();
    EXPECT_FALSE(rt.recording());
  }
  const auto block = [&](std::int64_t first, std::int64_t count) {
    if (replay) {
      rt.replay(g, first, count);
      // Everything completed: waits return at once, and the counts agree.
      EXPECT_EQ(rt.tasks_completed(), rt.tasks_submitted());
      rt.wait_for(hx);
      rt.wait_for(hy);
    } else {
      for (std::int64_t it = first; it < first + count; ++it) submit_body(rt, d, hx, hy, false, it);
    }
  };
  // A slow earlier task on a worker: the replay must wait for it first.
  rt.submit("slow", {write(hx)}, [&d](TaskContext&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    d.x = 11;
  });
  block(0, 3);
  rt.submit("between", {readwrite(hy)}, [&d] { d.y ^= 0x5555; });
  block(3, 4);
  block(7, 1);
  rt.submit("between2", {read(hx), readwrite(hy)}, [&d](TaskContext& ctx) {
    d.y += d.x % 1000 + static_cast<std::uint64_t>(ctx.iteration());  // 0: not replayed
  });
  block(-5, 6);
  block(100, 0);
  block(1, 17);
  rt.submit("after", {read(hx), readwrite(hy)}, [&d] { d.y = d.y * 3 + d.x; });
  rt.wait_all();
  return d;
}

TEST(IterationGraph, ReplaysInARowWithSubmissionsBetweenMatchSubmission) {
  const Pair expected = run_sequence(RuntimeOptions{.sequential = true}, false);
  for (RuntimeOptions options :
       {RuntimeOptions{.sequential = true}, RuntimeOptions{.threads = 1},
        RuntimeOptions{.threads = 2}, RuntimeOptions{.threads = 4, .steal_seed = 3},
        RuntimeOptions{.threads = 2, .replay_schedule = ReplaySchedule::balanced}}) {
    const Pair got = run_sequence(options, true);
    EXPECT_EQ(got.x, expected.x) << options.threads << " threads";
    EXPECT_EQ(got.y, expected.y) << options.threads << " threads";
  }
}

TEST(IterationGraph, TwoGraphsInterleavedAndCopiesReplayTheSameRecording) {
  for (int threads : {1, 2, 4}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    std::uint64_t a = 1, b = 2;
    Handle ha = rt.create_handle("a"), hb = rt.create_handle("b");
    rt.begin_recording();
    rt.submit("ga", {readwrite(ha)},
              [&a](TaskContext& ctx) { a = a * 31 + static_cast<std::uint64_t>(ctx.iteration()); });
    const IterationGraph ga = rt.end_recording();
    rt.begin_recording();
    rt.submit("gb", {read(ha), readwrite(hb)}, [&a, &b] { b = b * 7 + a; });
    IterationGraph gb = rt.end_recording();
    const IterationGraph copy = ga;
    EXPECT_EQ(copy.recorded(), ga.recorded());
    std::uint64_t ea = 1, eb = 2;
    for (int round = 0; round < 5; ++round) {
      rt.replay(round % 2 ? copy : ga, round * 10, 3);
      rt.replay(gb, 0, 2);
      for (int it = round * 10; it < round * 10 + 3; ++it)
        ea = ea * 31 + static_cast<std::uint64_t>(it);
      for (int it = 0; it < 2; ++it) eb = eb * 7 + ea;
    }
    EXPECT_EQ(a, ea) << threads << " threads";
    EXPECT_EQ(b, eb) << threads << " threads";
    gb = IterationGraph();  // dropping a graph between replays is fine
    rt.replay(copy, 0, 1);
    EXPECT_EQ(a, ea * 31) << threads << " threads";
  }
}

TEST(IterationGraph, GraphMayOutliveItsRuntimeUnreplayed) {
  IterationGraph g;
  {
    Runtime rt(RuntimeOptions{.threads = 2});
    Handle h = rt.create_handle("h");
    auto data = std::make_shared<int>(0);
    rt.begin_recording();
    rt.submit("t", {readwrite(h)}, [data] { ++*data; });
    g = rt.end_recording();
    rt.replay(g, 0, 3);
    EXPECT_EQ(*data, 3);
  }
  EXPECT_EQ(g.size(), 1u);  // its bodies are released with the last copy
}

TEST(IterationGraph, NodesWithManyAccessesAndLongChainsAcrossTheWindow) {
  // Twenty handles per task (past the inline records and the observer's stack buffer),
  // and a chain that crosses many iterations.
  for (int threads : {1, 2, 4}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    std::vector<Handle> hs;
    std::vector<std::uint64_t> v(20, 1);
    for (int i = 0; i < 20; ++i) hs.push_back(rt.create_handle("v"));
    std::vector<Access> all;
    for (int i = 0; i < 20; ++i) all.push_back(i % 3 ? read(hs[i]) : readwrite(hs[i]));
    rt.begin_recording();
    rt.submit("wide", std::span<const Access>(all), [&v](TaskContext& ctx) {
      std::uint64_t s = 0;
      for (auto x : v) s = s * 31 + x;
      for (std::size_t i = 0; i < v.size(); i += 3)
        v[i] = s + static_cast<std::uint64_t>(ctx.iteration());
    });
    for (int i = 1; i < 20; ++i) {
      rt.submit("link", {read(hs[i - 1]), readwrite(hs[i])},
                [&v, i] { v[i] = v[i] * 3 + v[i - 1]; });
    }
    const IterationGraph g = rt.end_recording();
    rt.replay(g, 0, 40);
    std::vector<std::uint64_t> e(20, 1);
    for (int it = 0; it < 40; ++it) {
      std::uint64_t s = 0;
      for (auto x : e) s = s * 31 + x;
      for (std::size_t i = 0; i < e.size(); i += 3) e[i] = s + static_cast<std::uint64_t>(it);
      for (int i = 1; i < 20; ++i) e[i] = e[i] * 3 + e[i - 1];
    }
    EXPECT_EQ(v, e) << threads << " threads";
  }
}

TEST(IterationGraph, RecordedBatchReplaysAsSubmitted) {
  constexpr int kCells = 37;
  const auto run = [&](RuntimeOptions options, bool replay) {
    Runtime rt(options);
    std::vector<std::uint64_t> v(kCells, 1);
    std::vector<Handle> h;
    for (int i = 0; i < kCells; ++i) h.push_back(rt.create_handle("v"));
    const auto submit_body = [&] {
      rt.submit_batch(
          "cell", kCells,
          [&](std::size_t i) {
            return std::vector<Access>{read(h[(i + kCells - 1) % kCells]), readwrite(h[i])};
          },
          [&](std::size_t i) { v[i] = v[i] * 31 + v[(i + kCells - 1) % kCells]; });
    };
    if (replay) {
      rt.begin_recording();
      submit_body();
      const IterationGraph g = rt.end_recording();
      EXPECT_EQ(g.size(), static_cast<std::size_t>(kCells));
      rt.replay(g, 0, 12);
    } else {
      for (int it = 0; it < 12; ++it) submit_body();
      rt.wait_all();
    }
    return v;
  };
  const auto expected = run(RuntimeOptions{.sequential = true}, false);
  for (int threads : {1, 2, 4}) {
    EXPECT_EQ(run(RuntimeOptions{.threads = threads}, true), expected) << threads << " threads";
  }
}

// A task of iteration m holds its completion until a task of iteration m + distance (which
// does not depend on it) releases it. Submitting the iterations runs that to completion;
// returns whether the hang watchdog had to release held tasks instead.
bool late_release_hangs(int threads, int distance, bool replay, std::string* report = nullptr,
                        ReplaySchedule schedule = ReplaySchedule::fixed) {
  constexpr std::int64_t kFirst = 5, kCount = 12;
  struct Slot {
    std::atomic<int> state{0};
    CompletionToken token;
  };
  std::vector<Slot> slots(kCount);
  std::atomic<bool> hung{false};
  Runtime* runtime = nullptr;
  const auto release = [&](Slot& slot) {
    if (slot.state.exchange(2, std::memory_order_acq_rel) == 1)
      runtime->complete(std::move(slot.token));
  };
  Runtime rt(RuntimeOptions{.threads = threads,
                            .hang_timeout_s = 0.5,
                            .on_hang =
                                [&](const std::string& d) {
                                  if (report && !hung.load()) *report = d;
                                  hung.store(true);
                                  for (Slot& slot : slots) release(slot);
                                },
                            .replay_schedule = schedule});
  runtime = &rt;
  const auto holder = [&](TaskContext& ctx, std::int64_t it) {
    if (it + distance >= kFirst + kCount) return;  // nobody would release it
    Slot& slot = slots[static_cast<std::size_t>(it - kFirst)];
    slot.token = ctx.hold();
    if (slot.state.exchange(1, std::memory_order_acq_rel) == 2) rt.complete(std::move(slot.token));
  };
  const auto releaser = [&](std::int64_t it) {
    if (it - distance >= kFirst) release(slots[static_cast<std::size_t>(it - distance - kFirst)]);
  };
  if (replay) {
    rt.begin_recording();
    rt.submit("holder", {}, [&](TaskContext& ctx) { holder(ctx, ctx.iteration()); });
    rt.submit("releaser", {}, [&](TaskContext& ctx) { releaser(ctx.iteration()); });
    const IterationGraph g = rt.end_recording();
    rt.replay(g, kFirst, kCount);
  } else {
    for (std::int64_t it = kFirst; it < kFirst + kCount; ++it) {
      rt.submit("holder", {}, [&, it](TaskContext& ctx) { holder(ctx, it); });
      rt.submit("releaser", {}, [&, it](TaskContext&) { releaser(it); });
    }
    rt.wait_all();
  }
  return hung.load();
}

TEST(IterationGraph, HoldReleasedOneOrTwoIterationsLater) {
  for (int threads : {1, 2}) {
    for (int distance : {1, 2}) {
      EXPECT_FALSE(late_release_hangs(threads, distance, false)) << distance;
      for (ReplaySchedule schedule : kSchedules) {
        EXPECT_FALSE(late_release_hangs(threads, distance, true, nullptr, schedule))
            << distance << ", " << name_of(schedule);
      }
    }
  }
}

// Runtime::replay's documented limit: it runs at most three iterations at once, so a hold
// released three iterations later never completes (submitting the tasks does), and the
// hang watchdog reports the task holding its completion.
TEST(IterationGraph, HoldReleasedThreeIterationsLaterIsReportedAsAHang) {
  for (ReplaySchedule schedule : kSchedules) {
    for (int threads : {1, 2}) {
      const std::string what = std::to_string(threads) + " threads, " + name_of(schedule);
      EXPECT_FALSE(late_release_hangs(threads, 3, false)) << what;
      std::string report;
      EXPECT_TRUE(late_release_hangs(threads, 3, true, &report, schedule)) << what;
      EXPECT_NE(report.find("task 'holder'"), std::string::npos) << report;
      EXPECT_NE(report.find("ran and holds its completion"), std::string::npos) << report;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Errors.

TEST(IterationGraph, TaskThrowingInOneIterationIsRethrownAndRuntimeStaysUsable) {
  for (int threads : {1, 2, 4}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    std::atomic<std::int64_t> x{0};
    Handle h = rt.create_handle("x");
    rt.begin_recording();
    rt.submit("step", {readwrite(h)}, [&x] { x.fetch_add(1); });
    rt.submit("boom", {read(h)}, [](TaskContext& ctx) {
      if (ctx.iteration() == 7) throw std::runtime_error("iteration seven failed");
    });
    rt.submit("tail", {readwrite(h)}, [&x] { x.fetch_add(100); });
    const IterationGraph g = rt.end_recording();
    try {
      rt.replay(g, 0, 20);
      ADD_FAILURE() << "expected a TaskError";
    } catch (const TaskError& e) {
      EXPECT_EQ(e.task_name(), "boom");
      EXPECT_NE(std::string(e.what()).find("iteration seven failed"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(rt.tasks_completed(), rt.tasks_submitted()) << "nothing may run after the replay";
    // Usable afterwards: replays and submissions give their results, no stale error.
    const std::int64_t before = x.load();
    rt.replay(g, 8, 5);
    EXPECT_EQ(x.load(), before + 5 * 101) << threads << " threads";
    rt.submit("after", {readwrite(h)}, [&x] { x.fetch_add(1000); });
    rt.wait_all();
    EXPECT_EQ(x.load(), before + 5 * 101 + 1000);
    // A second failure is reported again.
    EXPECT_THROW(rt.replay(g, 0, 8), TaskError);
    rt.wait_all();
  }
}

TEST(IterationGraph, ReduceAccessIsRejectedAtRecordTimeAndRecordingContinues) {
  Runtime rt(RuntimeOptions{.threads = 2});
  std::int64_t total = 0;
  Handle r = rt.create_reduction_handle("sum", &total,
                                        [](std::int64_t& into, std::int64_t v) { into += v; });
  Handle h = rt.create_handle("h");
  int runs = 0;
  const std::uint64_t submitted = rt.tasks_submitted();
  rt.begin_recording();
  rt.submit("ok", {readwrite(h)}, [&runs] { ++runs; });
  try {
    rt.submit("reducer", {read(h), reduce(r)},
              [r](TaskContext& ctx) { ctx.reduction_slot<std::int64_t>(r) = 1; });
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sum"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reducer"), std::string::npos) << e.what();
  }
  // A reduce merged with another mode of the same handle is rejected too.
  EXPECT_THROW(rt.submit("mixed", {reduce(r), read(r)}, [](TaskContext&) {}),
               std::invalid_argument);
  EXPECT_TRUE(rt.recording());
  rt.submit("ok2", {readwrite(h)}, [&runs](TaskContext&) { runs += 10; });
  const IterationGraph g = rt.end_recording();
  EXPECT_EQ(g.size(), 2u);
  EXPECT_EQ(rt.tasks_submitted(), submitted);
  rt.replay(g, 0, 3);
  EXPECT_EQ(runs, 33);
  EXPECT_EQ(total, 0);
}

TEST(IterationGraph, MisuseIsRejected) {
  Runtime rt(RuntimeOptions{.threads = 2});
  Runtime other(RuntimeOptions{.threads = 1});
  Handle h = rt.create_handle("h");
  int runs = 0;

  EXPECT_THROW(rt.replay(IterationGraph(), 0, 1), std::invalid_argument);
  EXPECT_TRUE(IterationGraph().empty());
  EXPECT_EQ(IterationGraph().size(), 0u);
  EXPECT_THROW(rt.end_recording(), std::logic_error);

  rt.begin_recording();
  EXPECT_THROW(rt.begin_recording(), std::logic_error);
  EXPECT_TRUE(rt.recording());
  rt.submit("t", {readwrite(h)}, [&runs] { ++runs; });
  EXPECT_EQ(runs, 0) << "a recorded task does not run";
  const IterationGraph g = rt.end_recording();
  EXPECT_EQ(g.size(), 1u);
  EXPECT_FALSE(g.empty());

  EXPECT_THROW(other.replay(g, 0, 1), std::invalid_argument);
  EXPECT_THROW(rt.replay(g, 0, -1), std::invalid_argument);
  rt.begin_recording();
  EXPECT_THROW(rt.replay(g, 0, 1), std::logic_error);
  const IterationGraph empty = rt.end_recording();
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(runs, 0);

  const std::uint64_t submitted = rt.tasks_submitted();
  rt.replay(empty, 0, 5);
  rt.replay(g, 3, 0);
  EXPECT_EQ(rt.tasks_submitted(), submitted);
  EXPECT_EQ(runs, 0);
  rt.replay(g, 0, 2);
  EXPECT_EQ(runs, 2);
}

// The progress engine (the MPI lane) may throw from a wait: Comm::progress reports a
// receive of the wrong size that way. A replay must report it and leave the runtime
// usable, not wait forever for iterations it armed but never released.
class ThrowingEngine : public ProgressEngine {
 public:
  /// Throws from the calls of progress() numbered `throw_at` (1-based).
  explicit ThrowingEngine(std::vector<int> throw_at) : throw_at_(std::move(throw_at)) {}
  LaneProgress progress() override {
    ++calls_;
    for (int k : throw_at_) {
      if (calls_ == k) throw std::runtime_error("lane failure");
    }
    return {};
  }
  std::uint64_t completions() const override { return 0; }
  void describe(std::ostream&) const override {}

 private:
  int calls_ = 0;
  std::vector<int> throw_at_;
};

struct HangReported {
  std::string description;
};

// A lane failure during a replay reaches the caller once the replay completed; a hang
// (the watchdog's throw) fails the test instead of blocking it.
TEST(IterationGraph, ProgressEngineFailureDuringReplayIsReported) {
  auto owned = std::make_unique<Runtime>(
      RuntimeOptions{.threads = 1, .hang_timeout_s = 1.0, .on_hang = [](const std::string& d) {
                       throw HangReported{d};
                     }});
  Runtime& rt = *owned;
  Handle h = rt.create_handle("x");
  std::int64_t x = 0;
  rt.begin_recording();
  rt.submit("step", {readwrite(h)}, [&x](TaskContext&) { ++x; });
  const IterationGraph g = rt.end_recording();
  ThrowingEngine engine({10});
  rt.set_progress_engine(&engine);
  try {
    rt.replay(g, 0, 100);
    FAIL() << "expected the lane's exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "lane failure");
  } catch (const HangReported& hang) {
    // The runtime is broken now: an armed instance counts as submitted and never runs, and
    // Scheduler::replay_ still points to the destroyed replay, which the destructor's wait
    // would read in its hang report. Leak it rather than crash the test binary.
    (void)owned.release();
    FAIL() << "replay hung after the lane threw:\n" << hang.description;
  }
  rt.set_progress_engine(nullptr);
  EXPECT_EQ(rt.tasks_completed(), rt.tasks_submitted());
  const std::int64_t before = x;
  rt.replay(g, 0, 5);
  EXPECT_EQ(x, before + 5);
}

// The lane reports each failure once (Comm::progress), so a second failure can surface
// while the replay still runs after the first. The replay must still complete every
// iteration before it returns: its instances would otherwise be freed while released tasks
// run or sit in the deques (ASan: heap-use-after-free).
TEST(IterationGraph, SecondLaneFailureWhileDrainingStillDrains) {
  // When failing, the runtime is left with tasks that cannot complete: the watchdog
  // aborts the test binary after 2 s.
  Runtime rt(RuntimeOptions{.threads = 2, .hang_timeout_s = 2});
  Handle ha = rt.create_handle("a"), hb = rt.create_handle("b");
  std::atomic<int> runs{0};
  const auto slow = [&runs](TaskContext&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    runs.fetch_add(1);
  };
  rt.begin_recording();
  rt.submit("a", {readwrite(ha)}, slow);
  rt.submit("b", {readwrite(hb)}, slow);
  const IterationGraph g = rt.end_recording();
  ThrowingEngine engine({10, 11});
  rt.set_progress_engine(&engine);
  EXPECT_THROW(rt.replay(g, 0, 50), std::runtime_error);
  EXPECT_EQ(rt.tasks_completed(), rt.tasks_submitted()) << "replay returned with tasks in flight";
  rt.set_progress_engine(nullptr);
  rt.wait_all();
}

// After a lane failure no id an observer saw submitted may be given again.
TEST(IterationGraph, TaskIdsStayUniqueAfterAFailedReplay) {
  Runtime rt(RuntimeOptions{.threads = 1});
  Handle h = rt.create_handle("x");
  rt.begin_recording();
  rt.submit("step", {readwrite(h)}, [](TaskContext&) {});
  const IterationGraph g = rt.end_recording();
  class SubmitIds : public Observer {
   public:
    unsigned events() const override { return kObserveSubmit; }
    void on_submit(const TaskInfo& t) override { ids.push_back(t.id); }
    void on_ready(const TaskInfo&, int) override {}
    void on_begin(const TaskInfo&, int) override {}
    void on_end(const TaskInfo&, int) override {}
    std::vector<std::uint64_t> ids;
  } observer;
  rt.set_observer(&observer);
  ThrowingEngine engine({10});
  rt.set_progress_engine(&engine);
  const std::uint64_t submitted = rt.tasks_submitted();
  EXPECT_THROW(rt.replay(g, 0, 100), std::runtime_error);
  rt.set_progress_engine(nullptr);
  const std::uint64_t after_failure = rt.tasks_submitted();
  EXPECT_GT(after_failure, submitted);
  for (int i = 0; i < 5; ++i) rt.submit("later", {readwrite(h)}, [](TaskContext&) {});
  rt.wait_all();
  rt.set_observer(nullptr);
  std::vector<std::uint64_t> sorted = observer.ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end())
      << "an id was given to two tasks";
  EXPECT_EQ(rt.tasks_submitted(), after_failure + 5);
  EXPECT_GE(after_failure, observer.ids.size() - 5 + submitted) << "tasks_submitted() went back";
}

// ---------------------------------------------------------------------------------------
// Observers.

class RecordingObserver : public Observer {
 public:
  struct Event {
    char kind;  // 's'ubmit, 'r'eady, 'b'egin, 'e'nd
    std::uint64_t id;
    std::string name;
    std::vector<std::pair<std::uint64_t, AccessMode>> accesses;
    std::optional<std::int64_t> iteration;  // set for a replayed instance
  };
  void on_submit(const TaskInfo& t) override { add('s', t); }
  void on_ready(const TaskInfo& t, int) override { add('r', t); }
  void on_begin(const TaskInfo& t, int) override { add('b', t); }
  void on_end(const TaskInfo& t, int) override { add('e', t); }
  std::vector<Event> events;

 private:
  void add(char kind, const TaskInfo& t) {
    Event e{kind, t.id, t.name, {}, {}};
    if (t.replayed) e.iteration = t.iteration;
    for (const AccessInfo& a : t.accesses) e.accesses.emplace_back(a.handle_id, a.mode);
    std::lock_guard<std::mutex> lock(mutex_);
    events.push_back(std::move(e));
  }
  std::mutex mutex_;
};

// Submits (or records) one iteration of three tasks, one with a repeated handle.
void submit_observed_body(Runtime& rt, const std::vector<Handle>& h) {
  rt.submit("first", {read(h[0]), write(h[1]), read(h[0])}, [](TaskContext&) {});
  rt.submit("second", {readwrite(h[1]), read(h[2])}, [](TaskContext&) {});
  rt.submit("third", {read(h[1]), write(h[2]), write(h[0])}, [](TaskContext&) {});
}

TEST(IterationGraph, ObserverSeesEveryReplayedTaskOnceInIdOrder) {
  constexpr int kIterations = 9;
  for (int threads : {1, 2, 4}) {
    // What submitting the tasks reports, for comparison.
    std::vector<RecordingObserver::Event> submitted_events;
    {
      Runtime rt(RuntimeOptions{.threads = threads});
      RecordingObserver obs;
      std::vector<Handle> h;
      for (int i = 0; i < 3; ++i) h.push_back(rt.create_handle("h"));
      rt.set_observer(&obs);
      for (int it = 0; it < kIterations; ++it) submit_observed_body(rt, h);
      rt.wait_all();
      for (auto& e : obs.events) {
        if (e.kind == 's') submitted_events.push_back(e);
      }
    }
    Runtime rt(RuntimeOptions{.threads = threads});
    std::vector<Handle> h;
    for (int i = 0; i < 3; ++i) h.push_back(rt.create_handle("h"));
    rt.submit("before", {write(h[0])}, [] {});
    rt.wait_all();
    rt.begin_recording();
    submit_observed_body(rt, h);
    const IterationGraph g = rt.end_recording();
    RecordingObserver obs;
    rt.set_observer(&obs);
    const std::uint64_t base = rt.tasks_submitted();
    rt.replay(g, -4, kIterations);
    rt.set_observer(nullptr);

    std::vector<RecordingObserver::Event> submits;
    for (auto& e : obs.events) {
      if (e.kind == 's') submits.push_back(e);
    }
    ASSERT_EQ(submits.size(), submitted_events.size()) << threads << " threads";
    for (std::size_t i = 0; i < submits.size(); ++i) {
      EXPECT_EQ(submits[i].id, base + 1 + i) << "on_submit in increasing id order";
      EXPECT_EQ(submits[i].name, submitted_events[i].name);
      EXPECT_EQ(submits[i].accesses, submitted_events[i].accesses) << submits[i].name;
      EXPECT_FALSE(submitted_events[i].iteration.has_value()) << "a submitted task is no instance";
      EXPECT_EQ(submits[i].iteration, -4 + static_cast<std::int64_t>(i / 3)) << "task " << i;
    }
    // Every event of an instance names the iteration its submission reported.
    for (const auto& e : obs.events) {
      EXPECT_EQ(e.iteration, submits[e.id - base - 1].iteration) << e.kind << " " << e.id;
    }
    // ready, begin and end once per task, after its on_submit, begin before end.
    const std::size_t n = submits.size();
    std::vector<int> seen_submit(n, -1), seen_ready(n, -1), seen_begin(n, -1), seen_end(n, -1);
    for (std::size_t k = 0; k < obs.events.size(); ++k) {
      const auto& e = obs.events[k];
      ASSERT_GT(e.id, base);
      ASSERT_LE(e.id, base + n);
      auto& slot = e.kind == 's'   ? seen_submit[e.id - base - 1]
                   : e.kind == 'r' ? seen_ready[e.id - base - 1]
                   : e.kind == 'b' ? seen_begin[e.id - base - 1]
                                   : seen_end[e.id - base - 1];
      EXPECT_EQ(slot, -1) << "event '" << e.kind << "' twice for task " << e.id;
      slot = static_cast<int>(k);
    }
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_GE(seen_ready[i], 0) << "no on_ready for task " << base + 1 + i;
      EXPECT_LT(seen_submit[i], seen_begin[i]) << "task " << base + 1 + i;
      EXPECT_LT(seen_ready[i], seen_begin[i]) << "task " << base + 1 + i;
      EXPECT_LT(seen_begin[i], seen_end[i]) << "task " << base + 1 + i;
    }
  }
}

// Replays 11 iterations of the graph of submit_observed_body (3 tasks each) with
// `observer` attached.
void replay_observed_body(Observer& observer) {
  Runtime rt(RuntimeOptions{.threads = 2});
  std::vector<Handle> h;
  for (int i = 0; i < 3; ++i) h.push_back(rt.create_handle("h"));
  rt.begin_recording();
  submit_observed_body(rt, h);
  const IterationGraph g = rt.end_recording();
  rt.set_observer(&observer);
  rt.replay(g, 0, 11);
  rt.set_observer(nullptr);
}

// Wants only begin and end.
class SpanCountingObserver : public Observer {
 public:
  unsigned events() const override { return kObserveBegin | kObserveEnd; }
  void on_submit(const TaskInfo&) override { ADD_FAILURE() << "on_submit not wanted"; }
  void on_ready(const TaskInfo&, int) override { ADD_FAILURE() << "on_ready not wanted"; }
  void on_begin(const TaskInfo&, int) override { begun.fetch_add(1); }
  void on_end(const TaskInfo&, int) override { ended.fetch_add(1); }
  std::atomic<int> begun{0}, ended{0};
};

TEST(IterationGraph, ObserverWantingOnlySpansGetsOnlySpans) {
  SpanCountingObserver obs;
  replay_observed_body(obs);
  EXPECT_EQ(obs.begun.load(), 33);
  EXPECT_EQ(obs.ended.load(), 33);
}

// Like RunStats: one call per body and nothing else, either its stamps (kObserveExecuted)
// or only its name (kObserveCounted).
class BodyCounter : public Observer {
 public:
  explicit BodyCounter(unsigned events) : events_(events) {}
  unsigned events() const override { return events_; }
  void on_submit(const TaskInfo&) override { ADD_FAILURE() << "on_submit not wanted"; }
  void on_ready(const TaskInfo&, int) override { ADD_FAILURE() << "on_ready not wanted"; }
  void on_begin(const TaskInfo&, int) override { ADD_FAILURE() << "on_begin not wanted"; }
  void on_end(const TaskInfo&, int) override { ADD_FAILURE() << "on_end not wanted"; }
  void on_executed(const char*, int, std::int64_t begin, std::int64_t end) override {
    if (events_ != kObserveExecuted) ADD_FAILURE() << "on_executed not wanted";
    executed.fetch_add(1);
    if (end < begin) disordered.fetch_add(1);
  }
  void on_counted(const char*, int) override {
    if (events_ != kObserveCounted) ADD_FAILURE() << "on_counted not wanted";
    counted.fetch_add(1);
  }
  std::atomic<int> executed{0}, disordered{0}, counted{0};

 private:
  unsigned events_;
};

TEST(IterationGraph, ObserverWantingOnlyExecutionTimesSeesEveryReplayedBody) {
  BodyCounter obs(kObserveExecuted);
  replay_observed_body(obs);
  EXPECT_EQ(obs.executed.load(), 33);
  EXPECT_EQ(obs.disordered.load(), 0);
}

TEST(IterationGraph, ObserverCountingTasksSeesEveryReplayedBody) {
  BodyCounter obs(kObserveCounted);
  replay_observed_body(obs);
  EXPECT_EQ(obs.counted.load(), 33);
}

// Every body's stamps, in the order the bodies ran (one thread).
class StampLog : public Observer {
 public:
  unsigned events() const override { return kObserveExecuted; }
  void on_submit(const TaskInfo&) override {}
  void on_ready(const TaskInfo&, int) override {}
  void on_begin(const TaskInfo&, int) override {}
  void on_end(const TaskInfo&, int) override {}
  void on_executed(const char* name, int, std::int64_t begin, std::int64_t end) override {
    stamps.emplace_back(begin, end);
    names.emplace_back(name);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> stamps;
  std::vector<std::string> names;
};

TEST(IterationGraph, BackToBackTasksShareAStampAndATaskAfterAPauseReadsTheClock) {
  StampLog log;
  Runtime rt(RuntimeOptions{.threads = 1});
  Handle h = rt.create_handle("h");
  rt.begin_recording();
  for (int i = 0; i < 3; ++i) rt.submit("link", {readwrite(h)}, [] {});
  const IterationGraph g = rt.end_recording();
  rt.set_observer(&log);
  rt.replay(g, 0, 10);
  // The application's own work between two replays is no task's time.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  rt.replay(g, 10, 1);
  rt.set_observer(nullptr);
  ASSERT_EQ(log.stamps.size(), 33u);
  for (std::size_t k = 0; k < log.stamps.size(); ++k) {
    EXPECT_LE(log.stamps[k].first, log.stamps[k].second) << k;
    if (k == 30) {
      EXPECT_GT(log.stamps[k].first, log.stamps[k - 1].second) << k;
    } else if (k > 0) {
      EXPECT_EQ(log.stamps[k].first, log.stamps[k - 1].second) << k;
    }
  }
}

// A lane that completes the held task of the last "request" and stamps that handling,
// like Comm::progress finishing a receive.
class CompletingLane : public ProgressEngine {
 public:
  explicit CompletingLane(Runtime& rt) : rt_(rt) {}
  LaneProgress progress() override {
    if (!held) return {};
    LaneProgress lane{false, base::fast_ticks(), 0};
    rt_.complete(std::move(*held));
    held.reset();
    ++completions_;
    lane.handled_to = base::fast_ticks();
    handled_to.push_back(lane.handled_to);
    return lane;
  }
  std::uint64_t completions() const override { return completions_; }
  void describe(std::ostream&) const override {}

  std::optional<CompletionToken> held;
  std::vector<std::int64_t> handled_to;

 private:
  Runtime& rt_;
  std::uint64_t completions_ = 0;
};

TEST(IterationGraph, TaskRunStraightAfterTheLaneHandledACompletionBeginsWhereTheLaneEnded) {
  Runtime rt(RuntimeOptions{.threads = 1});
  CompletingLane lane(rt);
  rt.set_progress_engine(&lane);
  Handle h = rt.create_handle("h");
  rt.begin_recording();
  rt.submit("request", {write(h)}, [&](TaskContext& ctx) { lane.held = ctx.hold(); });
  rt.submit("consumer", {read(h)}, [] {});
  const IterationGraph g = rt.end_recording();
  StampLog log;
  rt.set_observer(&log);
  rt.replay(g, 0, 5);
  rt.set_observer(nullptr);
  rt.set_progress_engine(nullptr);
  ASSERT_EQ(lane.handled_to.size(), 5u);
  ASSERT_EQ(log.names.size(), 10u);
  for (std::size_t i = 0; i < 5; ++i) {
    ASSERT_EQ(log.names[2 * i + 1], "consumer");
    EXPECT_EQ(log.stamps[2 * i + 1].first, lane.handled_to[i]) << i;
  }
}

// ---------------------------------------------------------------------------------------
// Hang reports.

// Replays iterations first .. first + count - 1 of a graph whose task 'stuck' holds its
// completion in iteration `stuck` until the hang callback releases it, followed by a task
// 'after' reading its handle when `with_after`. Returns the hang report.
std::string hang_report(int threads, std::int64_t first, std::int64_t count, std::int64_t stuck,
                        bool with_after, ReplaySchedule schedule = ReplaySchedule::fixed) {
  std::mutex mutex;
  CompletionToken token;
  bool token_stored = false;
  std::string report;
  Runtime* runtime = nullptr;
  Runtime rt(RuntimeOptions{.threads = threads,
                            .hang_timeout_s = 0.3,
                            .on_hang =
                                [&](const std::string& d) {
                                  std::lock_guard<std::mutex> lock(mutex);
                                  if (report.empty()) report = d;
                                  if (token_stored) {
                                    token_stored = false;
                                    runtime->complete(std::move(token));
                                  }
                                },
                            .replay_schedule = schedule});
  runtime = &rt;
  Handle h = rt.create_handle("h");
  std::int64_t value = 0;
  rt.begin_recording();
  rt.submit("stuck", {readwrite(h)}, [&, stuck](TaskContext& ctx) {
    ++value;
    if (ctx.iteration() != stuck) return;
    CompletionToken t = ctx.hold();
    std::lock_guard<std::mutex> lock(mutex);
    token = std::move(t);
    token_stored = true;
  });
  if (with_after) rt.submit("after", {read(h)}, [](TaskContext&) {});
  const IterationGraph g = rt.end_recording();
  rt.replay(g, first, count);
  EXPECT_EQ(value, count);
  EXPECT_FALSE(report.empty()) << "the watchdog never fired";
  return report;
}

TEST(IterationGraph, HangReportNamesTheReplayedIteration) {
  for (ReplaySchedule schedule : kSchedules) {
    for (int threads : {1, 2}) {
      const std::string report = hang_report(threads, 0, 3, 1, true, schedule);
      EXPECT_NE(report.find("'after'"), std::string::npos) << report;
      EXPECT_NE(report.find("of replayed iteration 1 waits for 1 earlier task(s)"),
                std::string::npos)
          << report;
      EXPECT_NE(report.find("'stuck'"), std::string::npos) << report;
    }
  }
}

// Negative iterations are iterations like any other in the report.
TEST(IterationGraph, HangReportNamesANegativeReplayedIteration) {
  for (ReplaySchedule schedule : kSchedules) {
    const std::string report = hang_report(2, -3, 3, -2, true, schedule);
    EXPECT_NE(report.find("'after'"), std::string::npos) << report;
    EXPECT_NE(report.find("of replayed iteration -2"), std::string::npos) << report;
  }
}

TEST(IterationGraph, HangReportNamesAReplayedTaskHoldingItsCompletion) {
  // Nothing waits behind the task: the report must name it for its hold alone.
  for (ReplaySchedule schedule : kSchedules) {
    const std::string report = hang_report(2, 4, 1, 4, false, schedule);
    EXPECT_NE(report.find("'stuck'"), std::string::npos) << report;
    EXPECT_NE(report.find("replayed iteration 4 ran and holds its completion"), std::string::npos)
        << report;
  }
}

}  // namespace
}  // namespace tessera
