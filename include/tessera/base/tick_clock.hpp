#pragma once
// Cheap timestamps for per-task events. Reading the steady clock costs tens of ns (a
// vDSO call; more on virtual machines), paid for every task by RunStats, which every
// run carries (once per task where tasks run back to back, twice otherwise). Where the CPU's
// time-stamp counter is known to be invariant and synchronized across CPUs (Linux keeps time with
// it, or with KVM's stable kvm-clock built on it), events are stamped with the counter and
// converted to nanoseconds afterwards; elsewhere ticks are steady-clock nanoseconds.

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "tessera/base/monotonic_clock.hpp"

namespace tessera::base {

/// True when ticks are time-stamp-counter cycles rather than nanoseconds (decided once
/// per process from /sys/devices/system/clocksource/clocksource0/current_clocksource
/// and, under kvm-clock, the CPU's invariant-TSC flag and a vDSO clock read).
bool ticks_are_tsc();

namespace detail {
extern const bool kTicksAreTsc;
}

/// A tick count, unordered: for durations and statistics, where a few cycles of
/// out-of-order skew do not matter.
inline std::int64_t fast_ticks() {
#if defined(__x86_64__)
  if (detail::kTicksAreTsc) return static_cast<std::int64_t>(__rdtsc());
#endif
  return monotonic_ns();
}

/// A tick count read only after every earlier instruction completed: a stamp taken
/// after seeing another thread's write is never earlier than a stamp that thread took
/// before the write (what a trace's dependency check relies on).
inline std::int64_t ordered_ticks() {
#if defined(__x86_64__)
  if (detail::kTicksAreTsc) {
    _mm_lfence();
    return static_cast<std::int64_t>(__rdtsc());
  }
#endif
  return monotonic_ns();
}

/// A tick count and the steady clock read together.
struct TickReference {
  std::int64_t ticks;
  std::int64_t ns;
  /// Reads both, retrying while a preemption separates the two readings.
  static TickReference now();
};

/// Linear map from ticks to steady-clock nanoseconds fitted between two references.
class TickCalibration {
 public:
  /// Fits between `start` and now, waiting until at least 1 ms separates them so the
  /// rate is accurate (to ~1e-4) even for very short runs.
  explicit TickCalibration(TickReference start);

  std::int64_t to_ns(std::int64_t ticks) const;
  /// Length in ns of a span of `ticks` ticks.
  std::int64_t duration_ns(std::int64_t ticks) const;
  double ns_per_tick() const { return ns_per_tick_; }

 private:
  TickReference start_;
  double ns_per_tick_ = 1.0;
};

}  // namespace tessera::base
