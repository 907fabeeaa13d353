// The hang watchdog reports outstanding requests (kind, peer, tag, bytes, age) and the
// tasks waiting on them when a peer never sends.
#include <gtest/gtest.h>
#include <mpi.h>

#include "tessera/comm/comm.hpp"

namespace tessera {
namespace {

TEST(Watchdog, ReceiveThatIsNeverSentIsReportedWithPeerTagAndWaitingTask) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string report;
  RuntimeOptions options{.threads = 2, .hang_timeout_s = 0.3};
  options.on_hang = [&](const std::string& text) {
    report = text;
    throw std::runtime_error("hang");
  };
  Runtime rt(options);
  Comm comm(rt, MPI_COMM_WORLD);
  TagSpace tags = comm.allocate_tags("never", 1);
  const int left = (rank + size - 1) % size;
  Handle h = rt.create_handle("never-filled");
  long value = 0;
  comm.irecv(h, &value, sizeof value, left, tags.tag(0));
  rt.submit(
      "consume", {read(h)}, [] {}, TaskAttributes(Priority::normal, {42}));
  EXPECT_THROW(rt.wait_all(), std::runtime_error);
  EXPECT_NE(report.find("recv 'irecv' peer " + std::to_string(left) + " tag " +
                        std::to_string(tags.tag(0)) + " bytes 8"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("task 'consume'"), std::string::npos) << report;
  EXPECT_NE(report.find("tags[42]"), std::string::npos) << report;
  // Now send the message so the request completes and the run can end cleanly. It goes
  // through Comm: the receive may wait on a ring, which a raw MPI message never reaches.
  MPI_Barrier(MPI_COMM_WORLD);
  long payload = 7;
  comm.isend(rt.create_handle("late"), &payload, sizeof payload, (rank + 1) % size, tags.tag(0));
  rt.wait_all();
  EXPECT_EQ(value, 7);
}

}  // namespace
}  // namespace tessera
