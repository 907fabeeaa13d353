#pragma once
// The one clock every obs event is stamped with: the monotonic clock, in nanoseconds.
// It is the same clock on every thread of a process (Linux CLOCK_MONOTONIC), so spans
// recorded on different workers compare directly; different ranks need clock_sync.
// In a simulation (SimGrid SMPI) it is the simulated clock, the same for every rank: a
// trace or phase time then says when things happen on the simulated cluster, not when
// the simulator ran them. It advances at MPI calls and charged bodies (modelled compute),
// so a stamp inside a measured burst reads the burst's start.

#include <chrono>
#include <cstdint>

#ifdef TESSERA_SMPI
#include <algorithm>
#include <atomic>
#include <cmath>
#endif

#ifdef TESSERA_SMPI
extern "C" double simgrid_get_clock();  // simgrid/engine.h, without SimGrid's headers
#endif

namespace tessera::base {

#ifdef TESSERA_SMPI
/// Simulated seconds of computation charged to this rank (modelled compute) and not yet
/// handed to SimGrid: comm/compute_model.cpp defers charges to the rank's next MPI call,
/// so the rank's own time is SimGrid's clock plus these. One per simulated rank (SMPI
/// gives each rank its own copy of the program's globals); written by the MPI thread only.
inline std::atomic<double> deferred_compute_seconds{0};
/// The latest simulated stamp this rank returned (see monotonic_ns).
inline std::atomic<std::int64_t> latest_simulated_ns{0};
#endif

/// Nanoseconds on the steady clock (arbitrary epoch, never goes backwards); simulated
/// nanoseconds in an SMPI build.
inline std::int64_t monotonic_ns() {
#ifdef TESSERA_SMPI
  // SimGrid ends the sleep of deferred charges within its time precision of the sum the
  // stamps before it read: the clock must not step back by that.
  const std::int64_t now = std::llround(
      (simgrid_get_clock() + deferred_compute_seconds.load(std::memory_order_relaxed)) * 1e9);
  std::int64_t latest = latest_simulated_ns.load(std::memory_order_relaxed);
  while (now > latest &&
         !latest_simulated_ns.compare_exchange_weak(latest, now, std::memory_order_relaxed)) {
  }
  return std::max(now, latest);
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

}  // namespace tessera::base
