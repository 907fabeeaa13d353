#include "tessera/base/tick_clock.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tessera::base {

namespace {

#if defined(__x86_64__) && !defined(TESSERA_SMPI)
/// CPUID 0x80000007 EDX bit 8: the TSC ticks at a constant rate in every power state.
bool cpu_has_invariant_tsc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8)) != 0;
}

/// Whether reading the steady clock stays in user space (vDSO): the fastest of a few
/// back-to-back reads takes tens of ns there, a system call about a microsecond.
bool clock_read_avoids_syscall() {
  constexpr std::int64_t kSyscallNs = 200;
  std::int64_t fastest = kSyscallNs;
  for (int i = 0; i < 32; ++i) {
    const std::int64_t before = monotonic_ns();
    fastest = std::min(fastest, monotonic_ns() - before);
  }
  return fastest < kSyscallNs;
}
#endif

bool detect_tsc_clock() {
#if defined(TESSERA_SMPI)
  return false;  // ticks are the simulated clock's nanoseconds (monotonic_clock.hpp)
#elif defined(__x86_64__)
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  if (!(source >> name)) return false;
  // The kernel keeps time with the TSC itself: it checked that the counter is invariant
  // and synchronized across CPUs.
  if (name == "tsc") return true;
  // Under KVM it keeps time with kvm-clock, the TSC as scaled by the hypervisor, and its
  // vDSO reads that without a system call only when the hypervisor flags the TSC stable
  // (PVCLOCK_TSC_STABLE_BIT: every vCPU's TSC matched). An invariant TSC and a clock
  // read that avoids the system call therefore make the TSC as good as the kernel's
  // clock, for less than half the cost of a read through kvm-clock.
  return name == "kvm-clock" && cpu_has_invariant_tsc() && clock_read_avoids_syscall();
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

}  // namespace tessera::base
