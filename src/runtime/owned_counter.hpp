#pragma once

#include <atomic>
#include <cstdint>

namespace tessera::detail {

/// A monotone counter written only by its owning thread: increments need no locked
/// instruction, and readers sum the counters of all threads.
struct alignas(64) OwnedCounter {
  std::atomic<std::uint64_t> value{0};
  void increment() {
    value.store(value.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  std::uint64_t load() const { return value.load(std::memory_order_acquire); }
};

}  // namespace tessera::detail
