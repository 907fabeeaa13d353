#include "obs/clock_sync.hpp"

#include <stdexcept>
#include <vector>

#include "tessera/base/check_mpi.hpp"
#include "tessera/base/monotonic_clock.hpp"

namespace tessera::obs {

std::int64_t estimate_offset(std::span<const ClockSample> samples) {
  if (samples.empty()) throw std::invalid_argument("estimate_offset: no clock samples");
  const ClockSample* best = &samples[0];
  for (const ClockSample& s : samples) {
    if (s.received_ns - s.sent_ns < best->received_ns - best->sent_ns) best = &s;
  }
  // The remote clock was read halfway through the round trip.
  const std::int64_t midpoint = best->sent_ns + (best->received_ns - best->sent_ns) / 2;
  return best->remote_ns - midpoint;
}

std::int64_t measure_offset_to_root(MPI_Comm comm, int rounds) {
  if (rounds < 1) throw std::invalid_argument("measure_offset_to_root: rounds must be >= 1");
  MPI_Comm sync = MPI_COMM_NULL;
  ::tessera::detail::check_mpi(MPI_Comm_dup(comm, &sync), "MPI_Comm_dup");
  int rank = 0;
  int size = 1;
  ::tessera::detail::check_mpi(MPI_Comm_rank(sync, &rank), "MPI_Comm_rank");
  ::tessera::detail::check_mpi(MPI_Comm_size(sync, &size), "MPI_Comm_size");
  constexpr int kPingTag = 1;
  constexpr int kOffsetTag = 2;
  std::int64_t own_offset = 0;
  if (rank == 0) {
    std::vector<ClockSample> samples(static_cast<std::size_t>(rounds));
    for (int peer = 1; peer < size; ++peer) {
      for (ClockSample& s : samples) {
        const char ping = 0;
        s.sent_ns = base::monotonic_ns();
        ::tessera::detail::check_mpi(MPI_Send(&ping, 1, MPI_CHAR, peer, kPingTag, sync),
                                     "MPI_Send");
        ::tessera::detail::check_mpi(
            MPI_Recv(&s.remote_ns, 1, MPI_INT64_T, peer, kPingTag, sync, MPI_STATUS_IGNORE),
            "MPI_Recv");
        s.received_ns = base::monotonic_ns();
      }
      const std::int64_t offset = estimate_offset(samples);
      ::tessera::detail::check_mpi(MPI_Send(&offset, 1, MPI_INT64_T, peer, kOffsetTag, sync),
                                   "MPI_Send");
    }
  } else {
    for (int k = 0; k < rounds; ++k) {
      char ping = 0;
      ::tessera::detail::check_mpi(
          MPI_Recv(&ping, 1, MPI_CHAR, 0, kPingTag, sync, MPI_STATUS_IGNORE), "MPI_Recv");
      const std::int64_t now = base::monotonic_ns();
      ::tessera::detail::check_mpi(MPI_Send(&now, 1, MPI_INT64_T, 0, kPingTag, sync), "MPI_Send");
    }
    ::tessera::detail::check_mpi(
        MPI_Recv(&own_offset, 1, MPI_INT64_T, 0, kOffsetTag, sync, MPI_STATUS_IGNORE), "MPI_Recv");
  }
  ::tessera::detail::check_mpi(MPI_Comm_free(&sync), "MPI_Comm_free");
  return own_offset;
}

}  // namespace tessera::obs
