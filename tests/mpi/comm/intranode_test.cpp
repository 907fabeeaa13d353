// Messages between ranks of one node: rings and MPI deliver the same messages to the same
// receives, whatever their size, tag mix or arrival before the receive, and a full ring
// only delays its sender.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "tessera/comm/comm.hpp"

namespace tessera {
namespace {

struct Case {
  Intranode intranode;
  int threads;
};

class IntranodeTest : public ::testing::TestWithParam<Case> {};

// Message i from `from` to `to`: its tag index and size. Every fifth is too large for a
// ring, so one channel mixes both paths.
int tag_index(int i) {
  return i % 3;
}
std::size_t message_bytes(int i) {
  return i % 5 == 0 ? 2000 : 8 + static_cast<std::size_t>(i % 7) * 100;
}
std::uint8_t content(int from, int to, int i, std::size_t k) {
  return static_cast<std::uint8_t>(from * 131 + to * 31 + i * 7 + static_cast<int>(k));
}

// Every rank sends kMessages messages to every rank (itself included) before any of its
// receives may be posted: they wait for a task that sleeps, so the rings fill up, their
// senders block, and the receivers find most messages already arrived.
TEST_P(IntranodeTest, EveryMessageReachesTheReceiveMpiWouldMatchItTo) {
  const Case c = GetParam();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  constexpr int kMessages = 100;
  Runtime rt(RuntimeOptions{.threads = c.threads, .hang_timeout_s = 60});
  Comm comm(rt, MPI_COMM_WORLD, c.intranode);
  EXPECT_EQ(comm.intranode(), c.intranode);
  TagSpace tags = comm.allocate_tags("mixed", 3);
  Handle gate = rt.create_handle("gate");
  rt.submit("sleep", {write(gate)},
            [] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); });
  std::vector<std::vector<std::uint8_t>> out, in;
  std::vector<Handle> handles;
  for (int peer = 0; peer < size; ++peer) {
    for (int i = 0; i < kMessages; ++i) {
      out.emplace_back(message_bytes(i));
      for (std::size_t k = 0; k < out.back().size(); ++k) out.back()[k] = content(rank, peer, i, k);
      comm.isend(rt.create_handle("out"), out.back().data(), out.back().size(), peer,
                 tags.tag(tag_index(i)));
    }
  }
  // Receives from each sender in its sending order; the order across tags does not matter
  // to MPI, so receives of one tag go first to cross the arrival order.
  for (int peer = 0; peer < size; ++peer) {
    for (int pass = 0; pass < 3; ++pass) {
      for (int i = 0; i < kMessages; ++i) {
        if (tag_index(i) != (pass + 2) % 3) continue;
        in.emplace_back(message_bytes(i));
        handles.push_back(rt.create_handle("in"));
        const Access accesses[] = {write(handles.back()), read(gate)};
        comm.irecv(accesses, in.back().data(), in.back().size(), peer, tags.tag(tag_index(i)));
      }
    }
  }
  rt.wait_all();
  std::size_t n = 0;
  for (int peer = 0; peer < size; ++peer) {
    for (int pass = 0; pass < 3; ++pass) {
      for (int i = 0; i < kMessages; ++i) {
        if (tag_index(i) != (pass + 2) % 3) continue;
        const std::vector<std::uint8_t>& got = in[n++];
        std::size_t wrong = 0;
        for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != content(peer, rank, i, k);
        EXPECT_EQ(wrong, 0u) << "message " << i << " from rank " << peer;
      }
    }
  }
  const CommStats s = comm.stats();
  EXPECT_EQ(s.messages_sent, static_cast<std::uint64_t>(size * kMessages));
  EXPECT_EQ(s.messages_received, static_cast<std::uint64_t>(size * kMessages));
  // All ranks of the test share one node: the small messages to other ranks take rings.
  const std::uint64_t small_to_others = static_cast<std::uint64_t>(size - 1) * (kMessages * 4 / 5);
  EXPECT_EQ(s.ring_messages_sent, c.intranode == Intranode::rings ? small_to_others : 0u);
  MPI_Barrier(MPI_COMM_WORLD);
}

INSTANTIATE_TEST_SUITE_P(Paths, IntranodeTest,
                         ::testing::Values(Case{Intranode::rings, 1}, Case{Intranode::rings, 2},
                                           Case{Intranode::mpi, 1}, Case{Intranode::mpi, 2}),
                         [](const auto& info) {
                           return std::string(to_string(info.param.intranode)) + "_" +
                                  std::to_string(info.param.threads) + "threads";
                         });

// A receive waiting on a ring is in the hang report, marked as such.
TEST(Intranode, ReceiveWaitingOnARingIsInTheHangReport) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) GTEST_SKIP() << "a ring needs two ranks";
  std::string report;
  RuntimeOptions options{.threads = 1, .hang_timeout_s = 0.3};
  options.on_hang = [&](const std::string& text) {
    report = text;
    throw std::runtime_error("hang");
  };
  Runtime rt(options);
  Comm comm(rt, MPI_COMM_WORLD);
  TagSpace tags = comm.allocate_tags("late", 1);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  long value = 0, payload = 11;
  comm.irecv(rt.create_handle("in"), &value, sizeof value, left, tags.tag(0));
  EXPECT_THROW(rt.wait_all(), std::runtime_error);
  EXPECT_NE(report.find("1 ring operation(s) in flight"), std::string::npos) << report;
  EXPECT_NE(report.find("recv 'irecv' peer " + std::to_string(left) + " tag " +
                        std::to_string(tags.tag(0)) + " bytes 8 age"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("(ring)"), std::string::npos) << report;
  MPI_Barrier(MPI_COMM_WORLD);
  comm.isend(rt.create_handle("out"), &payload, sizeof payload, right, tags.tag(0));
  rt.wait_all();
  EXPECT_EQ(value, 11);
  MPI_Barrier(MPI_COMM_WORLD);
}

// A rank killed between creating its ring segment and unlinking it leaves the segment's
// name in /dev/shm, and a later process may get the same process id: such leftovers (here
// under every name this process could have used without a random part) do not stop the
// rings from being set up.
TEST(Intranode, SegmentsLeftByAKilledProcessWithTheSameIdDoNotStopTheRings) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::string> leftovers;
  struct Unlink {  // also when a failure throws out of the test
    const std::vector<std::string>& names;
    ~Unlink() {
      for (const std::string& name : names) shm_unlink(name.c_str());
    }
  } unlink_leftovers{leftovers};
  for (int serial = 0; serial < 2048; ++serial) {
    leftovers.push_back("/tessera-rings-" + std::to_string(getpid()) + "-" +
                        std::to_string(serial));
    const int fd = shm_open(leftovers.back().c_str(), O_CREAT | O_RDWR, 0600);
    ASSERT_GE(fd, 0) << leftovers.back();
    close(fd);
  }
  {
    Runtime rt(RuntimeOptions{.threads = 1});
    Comm comm(rt, MPI_COMM_WORLD, Intranode::rings);
    TagSpace tags = comm.allocate_tags("leftovers", 1);
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    long value = 0, payload = 100 + rank;
    comm.irecv(rt.create_handle("in"), &value, sizeof value, left, tags.tag(0));
    comm.isend(rt.create_handle("out"), &payload, sizeof payload, right, tags.tag(0));
    rt.wait_all();
    EXPECT_EQ(value, 100 + left);
    if (size > 1) {
      EXPECT_GT(comm.stats().ring_messages_sent, 0u);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace tessera
