// Priorities, waits, holds, exceptions, batches, sequential mode and the observer.
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

using namespace std::chrono_literals;

// Carries a completion token from the task that took it to the test body.
struct TokenBox {
  std::mutex m;
  CompletionToken token;
  std::atomic<bool> set{false};
  void put(CompletionToken t) {
    std::lock_guard<std::mutex> l(m);
    token = std::move(t);
    set.store(true);
  }
  CompletionToken take() {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!set.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    std::lock_guard<std::mutex> l(m);
    return std::move(token);
  }
};

TEST(Priorities, HighTasksRunBeforeNormalOnOneThread) {
  Runtime rt(RuntimeOptions{.threads = 1});
  std::vector<char> order;
  for (int i = 0; i < 20; ++i) {
    rt.submit("normal", {}, [&] { order.push_back('n'); });
    rt.submit(
        "high", {}, [&] { order.push_back('h'); }, Priority::high);
  }
  rt.wait_all();
  ASSERT_EQ(order.size(), 40u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[i], 'h') << "position " << i;
}

TEST(Priorities, HighTasksStartBeforeNormalOnesWithTwoThreads) {
  Runtime rt(RuntimeOptions{.threads = 2});
  std::atomic<bool> go{false};
  std::mutex m;
  std::vector<char> starts;
  // Keep the worker busy while everything is submitted, so all tasks are ready at once.
  rt.submit("gate", {}, [&] {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!go.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  });
  std::this_thread::sleep_for(2ms);  // let the worker take the gate
  for (int i = 0; i < 100; ++i) {
    rt.submit("normal", {}, [&] {
      std::lock_guard<std::mutex> l(m);
      starts.push_back('n');
    });
    rt.submit(
        "high", {},
        [&] {
          go.store(true);
          {
            std::lock_guard<std::mutex> l(m);
            starts.push_back('h');
          }
          std::this_thread::sleep_for(10us);
        },
        Priority::high);
  }
  rt.wait_all();
  ASSERT_EQ(starts.size(), 200u);
  // A thread takes a normal task only once every high one has been taken. When the first
  // normal task records its start, at most one high task (the other thread's, taken but
  // not yet recording: a preempted thread can stay there for any number of normal tasks
  // of this one) has not recorded its own.
  const auto first_normal = std::find(starts.begin(), starts.end(), 'n');
  EXPECT_GE(std::count(starts.begin(), first_normal, 'h'), 99)
      << std::string(starts.begin(), starts.end());
}

TEST(Waits, WaitForReturnsWhileUnrelatedTasksAreBlocked) {
  for (int threads : {1, 2}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    Handle a = rt.create_handle("a"), b = rt.create_handle("b");
    TokenBox box;
    int a_value = 0;
    std::atomic<bool> b_ran{false};
    rt.submit("writer-a", {write(a)}, [&] { a_value = 42; });
    rt.submit("producer-b", {write(b)}, [&](TaskContext& ctx) { box.put(ctx.hold()); });
    rt.submit("consumer-b", {read(b)}, [&] { b_ran = true; });
    rt.wait_for(a);  // must not wait for the held producer of b
    EXPECT_EQ(a_value, 42);
    CompletionToken token = box.take();
    ASSERT_TRUE(token.valid());
    EXPECT_FALSE(b_ran.load());
    rt.complete(std::move(token));
    rt.wait_all();
    EXPECT_TRUE(b_ran);
  }
}

TEST(Waits, WaitForWaitsForTheLastWriterOnly) {
  Runtime rt(RuntimeOptions{.threads = 2});
  Handle h = rt.create_handle("h");
  std::atomic<int> value{0};
  for (int i = 1; i <= 10; ++i) {
    rt.submit("w", {readwrite(h)}, [&value, i] {
      std::this_thread::sleep_for(200us);
      value.store(i);
    });
  }
  rt.wait_for(h);
  EXPECT_EQ(value.load(), 10);
  rt.wait_all();
}

TEST(Holds, SuccessorsWaitForTheHoldToBeReleased) {
  Runtime rt(RuntimeOptions{.threads = 2});
  Handle h = rt.create_handle("h");
  TokenBox box;
  std::atomic<bool> released{false};
  std::atomic<bool> successor_saw_release{false};
  rt.submit("held", {write(h)}, [&](TaskContext& ctx) { box.put(ctx.hold()); });
  rt.submit("successor", {read(h)}, [&] { successor_saw_release = released.load(); });
  CompletionToken token = box.take();
  std::this_thread::sleep_for(5ms);
  released = true;
  rt.complete(std::move(token));
  rt.wait_all();
  EXPECT_TRUE(successor_saw_release.load());
}

TEST(Holds, TaskRunAtSubmissionStillHoldsItsSuccessors) {
  // Enough queued tasks that the next ready one runs inline at submission (the
  // throttle), on a handle nobody waits on: the path that builds no access groups.
  Runtime rt(RuntimeOptions{.threads = 1});
  for (int i = 0; i < 64; ++i) rt.submit("filler", {}, [] {});
  Handle h = rt.create_handle("h");
  TokenBox box;
  bool ran_inline = false;
  rt.submit("held", {write(h)}, [&](TaskContext& ctx) {
    ran_inline = true;
    box.put(ctx.hold());
  });
  ASSERT_TRUE(ran_inline) << "the held task should have run at submission";
  bool released = false;
  bool successor_saw_release = false;
  rt.submit("successor", {read(h)}, [&] { successor_saw_release = released; });
  released = true;
  rt.complete(box.take());
  rt.wait_for(h);
  rt.wait_all();
  EXPECT_TRUE(successor_saw_release);
}

TEST(Holds, WriterRunAtSubmissionWaitsForAReaderThatJoinedACompletedGroup) {
  // The reader joins the read group of a reader that already ran; a writer submitted
  // behind it, when the queues are deep enough to run tasks at submission, must still
  // wait for the reader (write after read).
  Runtime rt(RuntimeOptions{.threads = 1});
  Handle h = rt.create_handle("h");
  int value = 0;
  rt.submit("first-reader", {read(h)}, [] {});
  rt.wait_all();
  int seen = -1;
  rt.submit("reader", {read(h)}, [&] { seen = value; });
  for (int i = 0; i < 64; ++i) rt.submit("filler", {}, [] {});
  rt.submit("writer", {write(h)}, [&] { value = 1; });
  rt.wait_all();
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(value, 1);
}

TEST(Sequential, WaitForReturnsAfterTasksThatRanAtSubmission) {
  Runtime rt(RuntimeOptions{.sequential = true});
  Handle h = rt.create_handle("h");
  int value = 0;
  for (int i = 0; i < 5; ++i) rt.submit("add", {readwrite(h)}, [&] { ++value; });
  rt.submit("read", {read(h)}, [&] { EXPECT_EQ(value, 5); });
  rt.wait_for(h);
  EXPECT_EQ(value, 5);
  rt.wait_all();
  EXPECT_EQ(rt.tasks_completed(), 6u);
}

TEST(Exceptions, TaskExceptionIsRethrownWithTheTaskName) {
  for (int threads : {1, 2}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    Handle h = rt.create_handle("h");
    rt.submit("fine", {write(h)}, [] {});
    rt.submit("exploding-task", {readwrite(h)}, [] { throw std::runtime_error("boom"); });
    rt.submit("after", {read(h)}, [] {});
    try {
      rt.wait_all();
      FAIL() << "expected TaskError";
    } catch (const TaskError& e) {
      EXPECT_EQ(e.task_name(), "exploding-task");
      EXPECT_NE(std::string(e.what()).find("boom"), std::string::npos);
    }
    // The runtime stays usable after reporting the error.
    int x = 0;
    rt.submit("later", {write(h)}, [&] { x = 1; });
    rt.wait_all();
    EXPECT_EQ(x, 1);
  }
}

TEST(Exceptions, SequentialModeRethrowsAtSubmission) {
  Runtime rt(RuntimeOptions{.sequential = true});
  EXPECT_THROW(rt.submit("bad", {}, [] { throw std::runtime_error("x"); }), TaskError);
}

TEST(Sequential, TasksRunInlineInProgramOrder) {
  Runtime rt(RuntimeOptions{.threads = 4, .sequential = true});
  EXPECT_EQ(rt.threads(), 1);
  std::vector<int> order;
  const auto main_id = std::this_thread::get_id();
  bool all_on_main = true;
  for (int i = 0; i < 10; ++i) {
    rt.submit("t", {}, [&, i] {
      order.push_back(i);
      all_on_main &= std::this_thread::get_id() == main_id;
    });
    EXPECT_EQ(order.size(), static_cast<std::size_t>(i + 1)) << "task did not run inline";
  }
  EXPECT_TRUE(all_on_main);
}

TEST(Batch, BatchedTasksRespectDependenciesAndRunOnce) {
  for (int threads : {1, 2, 4}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    std::vector<Handle> hs;
    for (int i = 0; i < 16; ++i) hs.push_back(rt.create_handle("cell"));
    std::vector<long> values(16, 0);
    for (int sweep = 0; sweep < 5; ++sweep) {
      rt.submit_batch(
          "sweep", 16, [&](std::size_t i) { return std::array<Access, 1>{readwrite(hs[i])}; },
          [&values, sweep](std::size_t i) { values[i] = values[i] * 3 + sweep + long(i); });
    }
    rt.wait_all();
    for (int i = 0; i < 16; ++i) {
      long expect = 0;
      for (int s = 0; s < 5; ++s) expect = expect * 3 + s + i;
      EXPECT_EQ(values[i], expect);
    }
    EXPECT_EQ(rt.tasks_completed(), 80u);
  }
}

TEST(MainThreadOnly, SuchTasksRunOnTheSubmittingThread) {
  Runtime rt(RuntimeOptions{.threads = 4});
  const auto main_id = std::this_thread::get_id();
  std::atomic<int> wrong{0};
  Handle h = rt.create_handle("h");
  for (int i = 0; i < 50; ++i) {
    rt.submit("compute", {readwrite(h)}, [] {});
    rt.submit(
        "comm", {read(h)}, [&] { wrong += std::this_thread::get_id() != main_id; },
        TaskAttributes(Priority::normal, {}, true));
  }
  rt.wait_all();
  EXPECT_EQ(wrong.load(), 0);
}

class CountingObserver : public Observer {
 public:
  void on_submit(const TaskInfo& t) override {
    ++submits;
    accesses += static_cast<int>(t.accesses.size());
  }
  void on_ready(const TaskInfo&, int) override { ++readies; }
  void on_begin(const TaskInfo& t, int) override {
    ++begins;
    if (t.tags->count == 2 && t.tags->values[0] == 7) ++tagged;
  }
  void on_end(const TaskInfo&, int) override { ++ends; }
  /// Every callback once per task, each task tagged {7, i}, `accesses` accesses in all.
  void expect_seen(int tasks, int accesses_in_all) const {
    EXPECT_EQ(submits.load(), tasks);
    EXPECT_EQ(readies.load(), tasks);
    EXPECT_EQ(begins.load(), tasks);
    EXPECT_EQ(ends.load(), tasks);
    EXPECT_EQ(tagged.load(), tasks);
    EXPECT_EQ(accesses.load(), accesses_in_all);
  }
  std::atomic<int> submits{0}, readies{0}, begins{0}, ends{0}, tagged{0}, accesses{0};
};

TEST(Observer, SeesEveryTaskOnceWithTagsAndAccesses) {
  CountingObserver obs;
  Runtime rt(RuntimeOptions{.threads = 2});
  rt.set_observer(&obs);
  Handle h = rt.create_handle("h");
  for (int i = 0; i < 30; ++i) {
    rt.submit(
        "t", {readwrite(h)}, [] {}, TaskAttributes(Priority::normal, {7, i}));
  }
  rt.wait_all();
  obs.expect_seen(30, 30);
}

TEST(Observer, SeesTasksThatRanAtSubmissionWithTheirAccesses) {
  CountingObserver obs;
  Runtime rt(RuntimeOptions{.sequential = true});
  rt.set_observer(&obs);
  Handle a = rt.create_handle("a");
  Handle b = rt.create_handle("b");
  for (int i = 0; i < 30; ++i) {
    rt.submit(
        "t", {read(a), write(b)}, [] {}, TaskAttributes(Priority::normal, {7, i}));
  }
  rt.wait_all();
  obs.expect_seen(30, 60);
}

// Wants only begin and end, so tasks may run at submission without a node.
class SpanObserver : public Observer {
 public:
  unsigned events() const override { return kObserveBegin | kObserveEnd; }
  void on_submit(const TaskInfo&) override { ADD_FAILURE() << "on_submit not wanted"; }
  void on_ready(const TaskInfo&, int) override { ADD_FAILURE() << "on_ready not wanted"; }
  void on_begin(const TaskInfo& t, int worker) override {
    begun.push_back(t.id);
    names_ok &= std::string_view(t.name) == "t" && t.tags->count == 1 &&
                t.tags->values[0] == static_cast<std::int64_t>(t.id) && worker == 0;
  }
  void on_end(const TaskInfo& t, int) override { ended.push_back(t.id); }
  std::vector<std::uint64_t> begun, ended;
  bool names_ok = true;
};

TEST(Observer, SeesTasksThatRanAtSubmissionWithIdsNamesAndTags) {
  SpanObserver obs;
  Runtime rt(RuntimeOptions{.sequential = true});
  rt.set_observer(&obs);
  Handle h = rt.create_handle("h");
  std::vector<std::uint64_t> expected;
  for (std::uint64_t id = 1; id <= 20; ++id) {
    rt.submit(
        "t", {readwrite(h)}, [] {},
        TaskAttributes(Priority::normal, {static_cast<std::int64_t>(id)}));
    expected.push_back(id);
  }
  rt.wait_all();
  EXPECT_EQ(obs.begun, expected);
  EXPECT_EQ(obs.ended, expected);
  EXPECT_TRUE(obs.names_ok);
  EXPECT_EQ(rt.tasks_completed(), 20u);
}

// Like RunStats: wants one call per body and nothing else, either its time stamps
// (kObserveExecuted, full statistics) or only its name (kObserveCounted, counts).
class BodyObserver : public Observer {
 public:
  BodyObserver(unsigned events, int threads) : events_(events), threads_(threads) {}
  unsigned events() const override { return events_; }
  void on_submit(const TaskInfo&) override { ADD_FAILURE() << "on_submit not wanted"; }
  void on_ready(const TaskInfo&, int) override { ADD_FAILURE() << "on_ready not wanted"; }
  void on_begin(const TaskInfo&, int) override { ADD_FAILURE() << "on_begin not wanted"; }
  void on_end(const TaskInfo&, int) override { ADD_FAILURE() << "on_end not wanted"; }
  void on_executed(const char* name, int worker, std::int64_t begin_ticks,
                   std::int64_t end_ticks) override {
    if (events_ != kObserveExecuted) ADD_FAILURE() << "on_executed not wanted";
    record(name, worker, end_ticks < begin_ticks || begin_ticks <= 0);
  }
  void on_counted(const char* name, int worker) override {
    if (events_ != kObserveCounted) ADD_FAILURE() << "on_counted not wanted";
    record(name, worker, false);
  }
  std::map<std::string, int> count_by_name;
  int bad = 0;

 private:
  void record(const char* name, int worker, bool bad_stamps) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_by_name[name];
    bad += worker < 0 || worker >= threads_ || bad_stamps;
  }
  unsigned events_;
  int threads_;
  std::mutex mutex_;
};

// 200 tasks named "a" (67) and "b" (133) over four handles, run to completion.
void run_named_tasks(Runtime& rt) {
  std::vector<Handle> h;
  for (int i = 0; i < 4; ++i) h.push_back(rt.create_handle("h"));
  for (int i = 0; i < 200; ++i) {
    rt.submit(i % 3 == 0 ? "a" : "b", {read(h[i % 2]), readwrite(h[2 + i % 2])}, [] {});
  }
  rt.wait_all();
}

TEST(Observer, ExecutedSeesEveryBodyOnceWithItsNameAndOrderedStamps) {
  BodyObserver obs(kObserveExecuted, 2);
  Runtime rt(RuntimeOptions{.threads = 2});
  rt.set_observer(&obs);
  run_named_tasks(rt);
  rt.set_observer(nullptr);
  EXPECT_EQ(obs.count_by_name, (std::map<std::string, int>{{"a", 67}, {"b", 133}}));
  EXPECT_EQ(obs.bad, 0);
}

TEST(Observer, ExecutedSeesTasksOfASequentialRuntimeWhateverTheirAccessCount) {
  // More accesses than an observer's TaskInfo describes (kMaxDescribedAccesses): with
  // kObserveExecuted alone, nothing needs describing.
  BodyObserver obs(kObserveExecuted, 1);
  Runtime rt(RuntimeOptions{.sequential = true});
  rt.set_observer(&obs);
  std::vector<Access> accesses;
  for (int i = 0; i < 20; ++i) accesses.push_back(read(rt.create_handle("h")));
  for (int i = 0; i < 10; ++i) rt.submit("wide", std::span<const Access>(accesses), [] {});
  rt.submit("narrow", {read(accesses[0].handle)}, [] {});
  rt.wait_all();
  EXPECT_EQ(obs.count_by_name, (std::map<std::string, int>{{"narrow", 1}, {"wide", 10}}));
  EXPECT_EQ(obs.bad, 0);
  EXPECT_EQ(rt.tasks_completed(), 11u);
}

TEST(Observer, CountedSeesEveryBodyOnceWithItsName) {
  // Threads run tasks from the queues; a sequential runtime runs them at submission.
  for (const RuntimeOptions& options :
       {RuntimeOptions{.threads = 2}, RuntimeOptions{.sequential = true}}) {
    BodyObserver obs(kObserveCounted, options.sequential ? 1 : options.threads);
    Runtime rt(options);
    rt.set_observer(&obs);
    run_named_tasks(rt);
    rt.set_observer(nullptr);
    EXPECT_EQ(obs.count_by_name, (std::map<std::string, int>{{"a", 67}, {"b", 133}}));
    EXPECT_EQ(obs.bad, 0);
  }
}

TEST(Diagnostics, WaitingTasksAreDescribedWithHandleAndTags) {
  Runtime rt(RuntimeOptions{.threads = 2});
  Handle h = rt.create_handle("halo-buffer");
  TokenBox box;
  rt.submit("recv", {write(h)}, [&](TaskContext& ctx) { box.put(ctx.hold()); });
  rt.submit(
      "unpack", {read(h)}, [] {}, TaskAttributes(Priority::normal, {3, 1}));
  CompletionToken token = box.take();
  std::ostringstream out;
  rt.describe_waiting(out);
  EXPECT_NE(out.str().find("task 'unpack'"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("tags[3,1]"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("halo-buffer"), std::string::npos) << out.str();
  rt.complete(std::move(token));
  rt.wait_all();
}

TEST(Watchdog, HangIsReportedWithTheWaitingTask) {
  std::string report;
  TokenBox box;
  RuntimeOptions opts{.threads = 2, .hang_timeout_s = 0.2};
  opts.on_hang = [&](const std::string& text) {
    report = text;
    throw std::runtime_error("hang");
  };
  Runtime rt(opts);
  Handle h = rt.create_handle("never-written");
  rt.submit("stuck-producer", {write(h)}, [&](TaskContext& ctx) { box.put(ctx.hold()); });
  rt.submit("consumer", {read(h)}, [] {});
  EXPECT_THROW(rt.wait_all(), std::runtime_error);
  EXPECT_NE(report.find("consumer"), std::string::npos) << report;
  EXPECT_NE(report.find("never-written"), std::string::npos) << report;
  rt.complete(box.take());
  rt.wait_all();
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// The kernel's time slice of thread `tid` in ns (/proc's scheduler statistics, "se.slice"),
// or -1 where the kernel does not report it.
long long slice_of(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/sched");
  for (std::string line; std::getline(in, line);) {
    long long ns = 0;
    if (line.rfind("se.slice", 0) == 0 &&
        std::sscanf(line.c_str(), "se.slice %*[ :] %lld", &ns) == 1) {
      return ns;
    }
  }
  return -1;
}

// Linux 6.12 and later honour a SCHED_OTHER thread's own slice (sched_attr::sched_runtime).
bool kernel_has_custom_slices() {
  utsname u{};
  int major = 0, minor = 0;
  return uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
         (major > 6 || (major == 6 && minor >= 12));
}

// Whether a thread may set its own scheduling attributes here (a seccomp filter may refuse
// sched_setattr; the runtime then keeps the default slice). Probed on a scratch thread,
// which sets the attributes it has (SCHED_OTHER, its nice value, the default slice).
bool threads_may_set_their_attributes() {
  struct {
    std::uint32_t size = 48, policy = SCHED_OTHER;  // sched_attr, version 1
    std::uint64_t flags = 0;
    std::int32_t nice = 0;
    std::uint32_t priority = 0;
    std::uint64_t runtime = 0, deadline = 0, period = 0;
  } attr;
  static_assert(sizeof attr == 48);
  bool allowed = false;
  std::thread([&] {
    attr.nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    allowed = syscall(SYS_sched_setattr, 0, &attr, 0u) == 0;
  }).join();
  return allowed;
}

TEST(PassiveWait, AsksForAShortSliceAndKeepsTheThreadsNice) {
  if (!kernel_has_custom_slices() || slice_of(gettid()) < 0 ||
      !threads_may_set_their_attributes()) {
    GTEST_SKIP() << "the kernel has no custom slices, reports no thread's slice or refuses "
                    "sched_setattr";
  }
  // The runtime's main thread is a thread of its own, whose nice value the test raises by
  // one (allowed unprivileged): the short slice must not reset it to 0. It waits passively
  // for a fixed replay's task on the other thread, which ends once the main thread has its
  // short slice (or after 30 s: then the expectation below fails).
  int nice_before = 0, nice_after = 0;
  std::atomic<long long> slice_seen{-1};
  std::thread main_thread([&] {
    const auto tid = static_cast<id_t>(gettid());
    setpriority(PRIO_PROCESS, tid, getpriority(PRIO_PROCESS, tid) + 1);
    nice_before = getpriority(PRIO_PROCESS, tid);
    Runtime rt(RuntimeOptions{.threads = 2,
                              .wait_policy = WaitPolicy::passive,
                              .replay_schedule = ReplaySchedule::fixed});
    std::vector<Handle> chains{rt.create_handle("a"), rt.create_handle("b")};
    rt.begin_recording();
    for (Handle h : chains) {
      rt.submit("wait for the main thread's slice", {readwrite(h)}, [&, tid](TaskContext& ctx) {
        if (ctx.worker() == 0) return;
        const auto deadline = std::chrono::steady_clock::now() + 30s;
        while (slice_of(static_cast<pid_t>(tid)) != 100'000 &&
               std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(1ms);
        }
        slice_seen = slice_of(static_cast<pid_t>(tid));
      });
    }
    rt.replay(rt.end_recording(), 0, 1);
    nice_after = getpriority(PRIO_PROCESS, tid);
  });
  main_thread.join();
  EXPECT_EQ(slice_seen.load(), 100'000) << "the passive main thread's slice in ns";
  EXPECT_EQ(nice_after, nice_before);
}

}  // namespace
}  // namespace tessera
