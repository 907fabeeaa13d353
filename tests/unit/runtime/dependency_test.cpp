// Dependency semantics for every pair of access modes, under 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

using namespace std::chrono_literals;

// A task that holds for a moment so that a missing dependency shows up as a reordering.
void pause_briefly() {
  std::this_thread::sleep_for(2ms);
}

struct ModePair {
  AccessMode first;
  AccessMode second;
  bool ordered;  // must the second wait for the first?
};

class ModePairTest : public ::testing::TestWithParam<std::tuple<ModePair, int>> {};

TEST_P(ModePairTest, SecondTaskStartsAfterFirstEndsExactlyWhenModesConflict) {
  const auto [pair, threads] = GetParam();
  Runtime rt(RuntimeOptions{.threads = threads});
  double sink = 0;
  Handle h = rt.create_reduction_handle("h", &sink, [](double& a, double b) { a += b; });
  std::atomic<int> first_done{0};
  std::atomic<int> second_saw_first_done{-1};
  std::atomic<bool> release_first{false};
  rt.submit("first", {Access{h, pair.first}}, [&] {
    if (!pair.ordered) {
      // Unordered pairs must be able to overlap: the first waits for the second to start.
      auto deadline = std::chrono::steady_clock::now() + 5s;
      while (!release_first.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    } else {
      pause_briefly();
    }
    first_done.store(1);
  });
  rt.submit("second", {Access{h, pair.second}}, [&] {
    second_saw_first_done.store(first_done.load());
    release_first.store(true);
  });
  rt.wait_all();
  if (pair.ordered) {
    EXPECT_EQ(second_saw_first_done.load(), 1);
  } else if (threads > 1) {
    EXPECT_EQ(second_saw_first_done.load(), 0) << "independent accesses did not run together";
  }
}

const ModePair kPairs[] = {
    {AccessMode::read, AccessMode::read, false},
    {AccessMode::read, AccessMode::write, true},
    {AccessMode::read, AccessMode::readwrite, true},
    {AccessMode::read, AccessMode::reduce, true},
    {AccessMode::write, AccessMode::read, true},
    {AccessMode::write, AccessMode::write, true},
    {AccessMode::write, AccessMode::readwrite, true},
    {AccessMode::write, AccessMode::reduce, true},
    {AccessMode::readwrite, AccessMode::read, true},
    {AccessMode::readwrite, AccessMode::write, true},
    {AccessMode::readwrite, AccessMode::readwrite, true},
    {AccessMode::readwrite, AccessMode::reduce, true},
    {AccessMode::reduce, AccessMode::read, true},
    {AccessMode::reduce, AccessMode::write, true},
    {AccessMode::reduce, AccessMode::readwrite, true},
    {AccessMode::reduce, AccessMode::reduce, false},
};

// Unordered pairs with one thread would deadlock by design (the first task waits for
// the second), so the single-thread runs only cover ordered pairs.
std::vector<std::tuple<ModePair, int>> cases() {
  std::vector<std::tuple<ModePair, int>> out;
  for (const ModePair& p : kPairs) {
    for (int threads : {1, 2, 4}) {
      if (!p.ordered && threads == 1) continue;
      out.emplace_back(p, threads);
    }
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<ModePair, int>>& info) {
  const auto& [p, threads] = info.param;
  return std::string(to_string(p.first)) + "_then_" + std::string(to_string(p.second)) + "_" +
         std::to_string(threads) + "threads";
}

INSTANTIATE_TEST_SUITE_P(AllModePairs, ModePairTest, ::testing::ValuesIn(cases()), case_name);

TEST(Dependencies, ReadersBetweenWritersSeeThePrecedingWrite) {
  Runtime rt(RuntimeOptions{.threads = 4});
  Handle h = rt.create_handle("x");
  int x = 0;
  std::vector<int> seen(64, -1);
  for (int round = 0; round < 8; ++round) {
    rt.submit("write", {write(h)}, [&x, round] { x = round; });
    for (int r = 0; r < 8; ++r) {
      rt.submit("read", {read(h)}, [&x, &seen, round, r] { seen[round * 8 + r] = x; });
    }
  }
  rt.wait_all();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(seen[i], i / 8);
}

TEST(Dependencies, ConcurrentReadersRunTogether) {
  Runtime rt(RuntimeOptions{.threads = 4});
  Handle h = rt.create_handle("x");
  std::atomic<int> inside{0};
  std::atomic<int> max_inside{0};
  for (int i = 0; i < 4; ++i) {
    rt.submit("reader", {read(h)}, [&] {
      int now = ++inside;
      int prev = max_inside.load();
      while (prev < now && !max_inside.compare_exchange_weak(prev, now)) {
      }
      auto deadline = std::chrono::steady_clock::now() + 5s;
      while (max_inside.load() < 4 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      --inside;
    });
  }
  rt.wait_all();
  EXPECT_EQ(max_inside.load(), 4);
}

TEST(Dependencies, RepeatedHandleInOneTaskDoesNotDeadlock) {
  Runtime rt(RuntimeOptions{.threads = 2});
  Handle h = rt.create_handle("x");
  int x = 1;
  rt.submit("self", {read(h), write(h), readwrite(h)}, [&] { x += 1; });
  rt.submit("after", {read(h)}, [&] { x *= 10; });
  rt.wait_all();
  EXPECT_EQ(x, 20);
}

TEST(Dependencies, ReduceSlotsFoldInSubmissionOrder) {
  for (int threads : {1, 2, 4}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    std::vector<int> order;
    Handle h = rt.create_reduction_handle("order", &order,
                                          [](std::vector<int>& into, const std::vector<int>& s) {
                                            into.insert(into.end(), s.begin(), s.end());
                                          });
    for (int i = 0; i < 50; ++i) {
      rt.submit("contribute", {reduce(h)}, [&h, i](TaskContext& ctx) {
        if (i % 7 == 0) std::this_thread::sleep_for(100us);
        ctx.reduction_slot<std::vector<int>>(h).push_back(i);
      });
    }
    rt.wait_for(h);
    ASSERT_EQ(order.size(), 50u);
    for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i) << threads << " threads";
  }
}

// A reduction that already folded into its target is complete; a later reduce access
// starts a new one, and waiting for the handle waits for it too (it once joined the
// completed one, whose completion the wait then took for its own).
TEST(Dependencies, WaitForAReductionAfterAnEarlierOneCompletedWaitsForTheLaterOne) {
  for (int threads : {1, 2}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    std::vector<int> order;
    Handle h = rt.create_reduction_handle("order", &order,
                                          [](std::vector<int>& into, const std::vector<int>& s) {
                                            into.insert(into.end(), s.begin(), s.end());
                                          });
    rt.submit("first", {reduce(h)},
              [&h](TaskContext& ctx) { ctx.reduction_slot<std::vector<int>>(h).push_back(1); });
    rt.wait_for(h);
    ASSERT_EQ(order, std::vector<int>{1});
    std::atomic<bool> go{false};
    rt.submit("second", {reduce(h)}, [&h, &go](TaskContext& ctx) {
      while (!go.load()) std::this_thread::yield();
      ctx.reduction_slot<std::vector<int>>(h).push_back(2);
    });
    std::thread releaser([&go] {
      std::this_thread::sleep_for(20ms);
      go.store(true);
    });
    rt.wait_for(h);
    EXPECT_EQ(order, (std::vector<int>{1, 2})) << threads << " threads";
    releaser.join();
    rt.wait_all();
  }
}

TEST(Dependencies, ReduceOnPlainHandleIsRejectedWithTheHandleName) {
  Runtime rt;
  Handle h = rt.create_handle("plain-buffer");
  try {
    rt.submit("bad", {reduce(h)}, [] {});
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("plain-buffer"), std::string::npos);
  }
  rt.wait_all();  // nothing was submitted, so this returns
  EXPECT_EQ(rt.tasks_submitted(), 0u);
}

}  // namespace
}  // namespace tessera
