#include "obs/tick_clock.hpp"

#include <fstream>
#include <string>

namespace tessera::obs {

namespace {

bool detect_tsc_clock() {
#if defined(__x86_64__)
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  return static_cast<bool>(source >> name) && name == "tsc";
#else
  return false;
#endif
}

}  // namespace

namespace detail {
const bool kTicksAreTsc = detect_tsc_clock();
}

bool ticks_are_tsc() {
  return detail::kTicksAreTsc;
}

TickReference TickReference::now() {
  constexpr std::int64_t kMaxGapNs = 2'000;
  constexpr int kAttempts = 10;
  for (int attempt = 1;; ++attempt) {
    const std::int64_t before = monotonic_ns();
    const std::int64_t ticks = ordered_ticks();
    const std::int64_t after = monotonic_ns();
    if (after - before <= kMaxGapNs || attempt == kAttempts) {
      return {ticks, before + (after - before) / 2};
    }
  }
}

TickCalibration::TickCalibration(TickReference start) : start_(start) {
  if (!detail::kTicksAreTsc) return;  // ticks are nanoseconds already
  constexpr std::int64_t kMinimumSpanNs = 1'000'000;
  TickReference end = TickReference::now();
  while (end.ns - start.ns < kMinimumSpanNs || end.ticks <= start.ticks) {
    end = TickReference::now();
  }
  ns_per_tick_ =
      static_cast<double>(end.ns - start.ns) / static_cast<double>(end.ticks - start.ticks);
}

std::int64_t TickCalibration::to_ns(std::int64_t ticks) const {
  return start_.ns + duration_ns(ticks - start_.ticks);
}

std::int64_t TickCalibration::duration_ns(std::int64_t ticks) const {
  // Rounds half away from zero like std::llround, without its libm call: a trace
  // converts three stamps per task.
  const double ns = static_cast<double>(ticks) * ns_per_tick_;
  return static_cast<std::int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5);
}

}  // namespace tessera::obs
