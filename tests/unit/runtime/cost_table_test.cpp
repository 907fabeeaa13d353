// Measured cost per slot: every body naming a cost slot adds its time and work to that
// slot, under one and two threads, at submission, in sequential mode and in replays.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tessera/runtime/cost_table.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

constexpr int kSlots = 6;
// Slots 1 and 4 are never named: they must stay at zero.
bool named(int slot) {
  return slot != 1 && slot != 4;
}
// Slot 5's bodies sleep: its time is at least their sleeps (a lower bound, never a timing
// comparison between slots).
constexpr auto kSleep = std::chrono::milliseconds(2);

// An observer that stamps bodies (as run statistics do), so the runtime's own clock reads
// are the ones the cost table reuses.
class StampingObserver final : public Observer {
 public:
  unsigned events() const override { return kObserveExecuted; }
  void on_submit(const TaskInfo&) override {}
  void on_ready(const TaskInfo&, int) override {}
  void on_begin(const TaskInfo&, int) override {}
  void on_end(const TaskInfo&, int) override {}
  void on_executed(const char*, int, std::int64_t, std::int64_t) override {
    executed.fetch_add(1, std::memory_order_relaxed);
  }
  std::atomic<std::int64_t> executed{0};  // callbacks run on any worker
};

// Submits `rounds` rounds of one task per named slot (work 10 (s + 1); slot 3 states none,
// so it counts 1 per task), each also writing its own datum, and checks the window.
void check_costs(RuntimeOptions options, bool replay, bool observed) {
  Runtime rt(options);
  CostTable table(rt.threads(), kSlots);
  rt.set_cost_table(&table);
  StampingObserver observer;
  if (observed) rt.set_observer(&observer);
  std::vector<Handle> data;
  std::vector<double> values(kSlots, 0.0);
  for (int s = 0; s < kSlots; ++s) data.push_back(rt.create_handle("block"));
  constexpr int kRounds = 3;
  const auto submit_round = [&] {
    for (int s = 0; s < kSlots; ++s) {
      if (!named(s)) continue;
      TaskAttributes attributes;
      attributes.cost_slot = s;
      attributes.work = s == 3 ? 0 : 10 * (s + 1);
      rt.submit(
          "work", {readwrite(data[s])},
          [&values, s](TaskContext&) {
            if (s == 5) std::this_thread::sleep_for(kSleep);
            values[s] += 1.0;
          },
          attributes);
    }
    // A task without a slot is not measured.
    rt.submit("unmeasured", {readwrite(data[1])}, [&values] { values[1] += 1.0; });
  };
  if (replay) {
    rt.begin_recording();
    submit_round();
    const IterationGraph graph = rt.end_recording();
    rt.replay(graph, 0, kRounds);
  } else {
    for (int r = 0; r < kRounds; ++r) submit_round();
  }
  rt.wait_all();
  rt.set_cost_table(nullptr);
  rt.set_observer(nullptr);
  const CostWindow window = table.close_window();
  ASSERT_EQ(window.seconds.size(), static_cast<std::size_t>(kSlots));
  double work = 0;
  for (int s = 0; s < kSlots; ++s) {
    SCOPED_TRACE(s);
    if (!named(s)) {
      EXPECT_EQ(window.seconds[s], 0.0);
      EXPECT_EQ(window.work[s], 0.0);
      continue;
    }
    EXPECT_EQ(values[s], kRounds);
    const double expected = kRounds * (s == 3 ? 1.0 : 10.0 * (s + 1));
    EXPECT_EQ(window.work[s], expected);
    work += expected;
    EXPECT_GE(window.seconds[s], 0.0);
  }
  EXPECT_GE(window.seconds[5], 0.9 * kRounds * std::chrono::duration<double>(kSleep).count());
  EXPECT_EQ(window.work_done, work);
  EXPECT_GT(window.busy_seconds, 0.0);
  EXPECT_GT(window.speed(), 0.0);
  if (observed) {
    EXPECT_EQ(observer.executed, kRounds * (kSlots - 2 + 1));
  }
  // The window is closed: nothing is left for the next one.
  const CostWindow next = table.close_window();
  EXPECT_EQ(next.work_done, 0.0);
  EXPECT_EQ(next.busy_seconds, 0.0);
}

TEST(CostTable, SubmittedTasksChargeTheirSlotOnOneThread) {
  check_costs({.threads = 1}, false, false);
}

TEST(CostTable, SubmittedTasksChargeTheirSlotOnTwoThreads) {
  check_costs({.threads = 2}, false, false);
}

TEST(CostTable, SequentialTasksRunAtSubmissionChargeTheirSlot) {
  check_costs({.threads = 1, .sequential = true}, false, false);
  check_costs({.threads = 1, .sequential = true}, false, true);
}

TEST(CostTable, ObservedTasksChargeTheirSlotWithTheObserversStamps) {
  check_costs({.threads = 1}, false, true);
  check_costs({.threads = 2}, false, true);
}

TEST(CostTable, ReplayedTasksKeepTheirSlot) {
  check_costs({.threads = 1}, true, false);
  check_costs({.threads = 2}, true, false);
  check_costs({.threads = 2, .replay_schedule = ReplaySchedule::balanced}, true, false);
  check_costs({.threads = 2, .replay_schedule = ReplaySchedule::balanced}, true, true);
}

TEST(CostTable, TheSubmissionSlotChargesTasksThatNameNone) {
  for (const bool sequential : {false, true}) {
    Runtime rt({.threads = sequential ? 1 : 2, .sequential = sequential});
    CostTable table(rt.threads(), 3);
    rt.set_cost_table(&table);
    const Handle h = rt.create_handle("h");
    rt.set_submission_cost_slot(2);
    rt.submit("block 2", {readwrite(h)}, [] {});
    TaskAttributes own;
    own.cost_slot = 0;
    own.work = 5;
    rt.submit(
        "block 0", {readwrite(h)}, [](TaskContext&) {}, own);
    rt.set_submission_cost_slot(-1);
    rt.submit("none", {readwrite(h)}, [] {});
    rt.wait_all();
    rt.set_cost_table(nullptr);
    EXPECT_EQ(table.close_window().work, (std::vector<double>{5, 0, 1})) << sequential;
  }
}

TEST(CostTable, DecayedWindowsKeepAFractionOfThePreviousSums) {
  CostTable table(2, 3);
  table.add(0, 0, 1000, 4);
  table.add(1, 0, 1000, 4);
  table.add(1, 2, 10, 1);
  const CostWindow first = table.close_window(0.5);
  EXPECT_EQ(first.work, (std::vector<double>{8, 0, 1}));
  table.add(0, 0, 0, 2);
  const CostWindow second = table.close_window(0.5);
  EXPECT_EQ(second.work, (std::vector<double>{6, 0, 0.5}));
  EXPECT_DOUBLE_EQ(second.seconds[0], 0.5 * first.seconds[0]);
  EXPECT_EQ(second.work_done, 6.5);
  EXPECT_EQ(second.threads, 2);
}

TEST(CostTable, SlotsOutsideTheTableAreIgnored) {
  CostTable table(1, 2);
  table.add(0, 2, 100, 1);
  table.add(0, -1, 100, 1);
  table.add(1, 0, 100, 1);
  EXPECT_EQ(table.close_window().work_done, 0.0);
  table.reset(4);
  EXPECT_EQ(table.slots(), 4u);
  table.add(0, 3, 100, 7);
  EXPECT_EQ(table.close_window().work[3], 7.0);
}

TEST(CostTable, RejectsATableWithFewerThreadsThanTheRuntime) {
  Runtime rt({.threads = 2});
  CostTable table(1, 1);
  EXPECT_THROW(rt.set_cost_table(&table), std::invalid_argument);
  EXPECT_THROW(CostTable(0), std::invalid_argument);
  EXPECT_THROW(table.close_window(1.0), std::invalid_argument);
}

TEST(CostWindow, WaitsForACoreSlowTheSpeedAtMostByHalf) {
  CostWindow w;
  w.busy_seconds = 2.0;
  w.work_done = 4.0;
  w.threads = 1;
  EXPECT_DOUBLE_EQ(w.speed(), 2.0);
  w.waiting_seconds = 1.0;  // runnable a third of its working time: two thirds of the speed
  EXPECT_DOUBLE_EQ(w.speed(), 4.0 / 3.0);
  w.waiting_seconds = 6.0;  // an idle rank yielding to its core's other rank: capped at half
  EXPECT_DOUBLE_EQ(w.speed(), 1.0);
  w.threads = 2;
  EXPECT_DOUBLE_EQ(w.speed(), 2.0);
}

}  // namespace
}  // namespace tessera
