// Kernel FLOP/byte accounting (Task Bench's numbers) and the memory kernel's bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "../../../apps/taskbench/kernel.hpp"

namespace tessera::taskbench {
namespace {

TEST(Kernel, FlopsFollowTaskBenchsFormulas) {
  EXPECT_EQ(flops_per_task({.type = KernelType::compute_bound, .iterations = 1000}, 0, 3, 1),
            2 * 64 * 1000 + 64);
  EXPECT_EQ(flops_per_task({.type = KernelType::compute_bound2, .iterations = 10}, 0, 3, 1),
            2 * 32 * 10);
  EXPECT_EQ(flops_per_task({.type = KernelType::busy_wait, .iterations = 1000}, 0, 3, 1), 0);
  const KernelConfig balanced{.type = KernelType::load_imbalance, .iterations = 100};
  EXPECT_EQ(flops_per_task(balanced, 0, 3, 1), 2 * 64 * 100 + 64);
}

TEST(Kernel, ImbalanceStaysWithinItsBand) {
  const KernelConfig k{.type = KernelType::load_imbalance, .iterations = 1000, .imbalance = 1.0};
  long low = 1000, high = 1000;
  for (long t = 0; t < 50; ++t) {
    for (long x = 0; x < 8; ++x) {
      const long n = imbalance_iterations(k, 0, t, x);
      EXPECT_GE(n, 500);
      EXPECT_LE(n, 1500);
      low = std::min(low, n);
      high = std::max(high, n);
    }
  }
  EXPECT_LT(low, 700);  // the band is actually used
  EXPECT_GT(high, 1300);
}

TEST(Kernel, BytesCountScratchTimesIterationsOverSamples) {
  const KernelConfig k{.type = KernelType::memory_bound, .iterations = 8, .samples = 4};
  EXPECT_EQ(bytes_per_task(k, 65536), 65536LL * 8 / 4);
  EXPECT_EQ(bytes_per_task({.type = KernelType::compute_bound}, 65536), 0);
}

TEST(Kernel, MemoryBoundStaysInsideItsScratchAndKeepsTheMagicWord) {
  constexpr std::size_t kGuard = 64;
  for (long samples : {1L, 3L, 4L, 16L}) {
    for (long iterations : {0L, 1L, 5L, 16L, 37L}) {
      const std::size_t scratch = static_cast<std::size_t>(samples) * 48;
      std::vector<std::byte> buffer(scratch + 2 * kGuard, std::byte{0x77});
      std::span<std::byte> inside(buffer.data() + kGuard, scratch);
      for (std::size_t i = 0; i < scratch; ++i) inside[i] = static_cast<std::byte>(i * 7);
      std::memcpy(inside.data(), &kScratchMagic, sizeof kScratchMagic);
      const std::vector<std::byte> before(inside.begin(), inside.end());
      const KernelConfig k{
          .type = KernelType::memory_bound, .iterations = iterations, .samples = samples};
      for (long t = 0; t < 5; ++t) run_kernel(k, 0, t, 0, inside);
      for (std::size_t i = 0; i < kGuard; ++i) {
        ASSERT_EQ(buffer[i], std::byte{0x77});
        ASSERT_EQ(buffer[kGuard + scratch + i], std::byte{0x77});
      }
      std::uint64_t first;
      std::memcpy(&first, inside.data(), sizeof first);
      EXPECT_EQ(first, kScratchMagic);
      EXPECT_EQ(iterations > 0, !std::equal(before.begin(), before.end(), inside.begin()))
          << "samples " << samples << " iterations " << iterations;
    }
  }
}

}  // namespace
}  // namespace tessera::taskbench
