// Tick timestamps and their conversion to steady-clock nanoseconds.
#include "tessera/base/tick_clock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace tessera::base {
namespace {

TEST(TickClock, TicksNeverGoBackwardsOnOneThread) {
  std::int64_t last = ordered_ticks();
  for (int i = 0; i < 10'000; ++i) {
    const std::int64_t now = i % 2 ? ordered_ticks() : fast_ticks();
    ASSERT_GE(now, last);
    last = now;
  }
}

// What traces rely on when ticks are the TSC: a stamp taken after seeing another
// thread's write is not earlier than the stamp that thread took before writing, whichever
// CPUs the two threads run on (the counters are synchronized).
TEST(TickClock, StampsFollowTheOrderOfAHandOffBetweenThreads) {
  constexpr int kRounds = 5'000;
  std::atomic<int> turn{0};
  std::vector<std::int64_t> stamps(2 * kRounds);
  auto player = [&](int parity) {
    for (int round = parity; round < 2 * kRounds; round += 2) {
      // Yielding keeps the hand-off quick when both threads share a core.
      while (turn.load(std::memory_order_acquire) != round) std::this_thread::yield();
      stamps[round] = ordered_ticks();
      turn.store(round + 1, std::memory_order_release);
    }
  };
  std::thread other(player, 1);
  player(0);
  other.join();
  for (int i = 1; i < 2 * kRounds; ++i) ASSERT_GE(stamps[i], stamps[i - 1]) << "hand-off " << i;
}

TEST(TickCalibration, MapsTheStartReferenceExactlyAndIsMonotone) {
  const TickReference start = TickReference::now();
  const TickCalibration clock(start);
  EXPECT_GT(clock.ns_per_tick(), 0.0);
  if (!ticks_are_tsc()) {
    EXPECT_EQ(clock.ns_per_tick(), 1.0);
  }
  EXPECT_EQ(clock.to_ns(start.ticks), start.ns);
  EXPECT_EQ(clock.duration_ns(0), 0);
  std::vector<std::int64_t> ticks;
  for (int i = 0; i < 1000; ++i) ticks.push_back(start.ticks + i * 7);
  for (std::size_t i = 1; i < ticks.size(); ++i) {
    ASSERT_LE(clock.to_ns(ticks[i - 1]), clock.to_ns(ticks[i]));
  }
}

TEST(TickCalibration, DurationsAreDifferencesOfConvertedTimes) {
  const TickCalibration clock(TickReference::now());
  const std::int64_t a = fast_ticks();
  const std::int64_t b = a + 123'456;
  // Equal up to rounding of each conversion.
  EXPECT_NEAR(static_cast<double>(clock.to_ns(b) - clock.to_ns(a)),
              static_cast<double>(clock.duration_ns(b - a)), 1.0);
}

}  // namespace
}  // namespace tessera::base
