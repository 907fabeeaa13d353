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
extern "C" double simgrid_get_clock();  // simgrid/engine.h, without SimGrid's headers
#endif

namespace tessera::obs {

#ifdef TESSERA_SMPI
/// Simulated seconds of computation charged to this rank (modelled compute) and not yet
/// handed to SimGrid: runtime/compute_model.cpp defers charges to the rank's next MPI call,
/// so the rank's own time is SimGrid's clock plus these. One per simulated rank (SMPI
/// gives each rank its own copy of the program's globals).
inline double deferred_compute_seconds = 0;
#endif

/// Nanoseconds on the steady clock (arbitrary epoch, never goes backwards); simulated
/// nanoseconds in an SMPI build.
inline std::int64_t monotonic_ns() {
#ifdef TESSERA_SMPI
  return static_cast<std::int64_t>((simgrid_get_clock() + deferred_compute_seconds) * 1e9);
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

}  // namespace tessera::obs
