#pragma once
// Clock alignment across ranks: each rank's monotonic clock differs from rank 0's by an
// offset (on one node it is ~0, across nodes it is arbitrary). Measured by ping-pong
// with rank 0, keeping the sample with the smallest round trip (least queueing noise,
// so the symmetric-delay assumption errs by at most half that round trip).

#include <mpi.h>

#include <cstdint>
#include <span>

namespace tessera::obs {

/// One ping-pong seen from rank 0: when it sent, what the remote clock read when it
/// answered, and when the answer arrived (all ns).
struct ClockSample {
  std::int64_t sent_ns;
  std::int64_t remote_ns;
  std::int64_t received_ns;
};

/// Remote clock minus local clock, from the sample with the smallest round trip,
/// assuming equal delays both ways. `samples` must not be empty.
std::int64_t estimate_offset(std::span<const ClockSample> samples);

/// Collective over `comm`, main thread: returns this rank's clock minus rank 0's clock
/// in ns (0 on rank 0), from `rounds` ping-pongs per rank. Uses a duplicate of `comm`,
/// so it never matches the application's messages.
std::int64_t measure_offset_to_root(MPI_Comm comm, int rounds = 32);

}  // namespace tessera::obs
