#pragma once
// The one clock every obs event is stamped with: the monotonic clock, in nanoseconds.
// It is the same clock on every thread of a process (Linux CLOCK_MONOTONIC), so spans
// recorded on different workers compare directly; different ranks need clock_sync.

#include <chrono>
#include <cstdint>

namespace tessera::obs {

/// Nanoseconds on the steady clock (arbitrary epoch, never goes backwards).
inline std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace tessera::obs
