// Point-to-point communication tasks: ring pipelines with dependencies crossing ranks,
// under every thread count and model, give the sequential answer.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"

namespace tessera {
namespace {

struct MessageRingResult {
  std::vector<double> values;
};

// Each rank owns `width` values; in every round it sends them to the right neighbour,
// receives the left neighbour's, and updates value = value * 0.5 + received. Submission
// order of the send and receive tasks is shuffled with `seed`.
MessageRingResult run_message_ring(RuntimeOptions options, int rounds, int width,
                                   std::uint64_t seed) {
  Runtime rt(options);
  Comm comm(rt, MPI_COMM_WORLD);
  const int right = (comm.rank() + 1) % comm.size();
  const int left = (comm.rank() + comm.size() - 1) % comm.size();
  TagSpace tags = comm.allocate_tags("ring", 1);
  std::vector<double> value(width), outgoing(width), incoming(width);
  for (int i = 0; i < width; ++i) value[i] = comm.rank() * 100 + i;
  Handle hv = rt.create_handle("value"), hout = rt.create_handle("out"),
         hin = rt.create_handle("in");
  std::mt19937_64 rng(seed + comm.rank());
  for (int r = 0; r < rounds; ++r) {
    rt.submit("pack", {read(hv), write(hout)}, [&] { outgoing = value; });
    if (rng() & 1) {
      comm.isend(hout, outgoing.data(), width * sizeof(double), right, tags.tag(0));
      comm.irecv(hin, incoming.data(), width * sizeof(double), left, tags.tag(0));
    } else {
      comm.irecv(hin, incoming.data(), width * sizeof(double), left, tags.tag(0));
      comm.isend(hout, outgoing.data(), width * sizeof(double), right, tags.tag(0));
    }
    rt.submit("update", {readwrite(hv), read(hin)}, [&] {
      for (int i = 0; i < width; ++i) value[i] = value[i] * 0.5 + incoming[i];
    });
  }
  rt.wait_all();
  return {value};
}

std::vector<double> expected_ring(int rank, int size, int rounds, int width) {
  std::vector<std::vector<double>> v(size, std::vector<double>(width));
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < width; ++i) v[p][i] = p * 100 + i;
  }
  for (int r = 0; r < rounds; ++r) {
    auto next = v;
    for (int p = 0; p < size; ++p) {
      const int left = (p + size - 1) % size;
      for (int i = 0; i < width; ++i) next[p][i] = v[p][i] * 0.5 + v[left][i];
    }
    v = next;
  }
  return v[rank];
}

TEST(PointToPoint, RingPipelineMatchesSequentialUnderEveryModel) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto expected = expected_ring(rank, size, 20, 64);
  for (RuntimeOptions options :
       {RuntimeOptions{.sequential = true}, RuntimeOptions{.threads = 1},
        RuntimeOptions{.threads = 2}, RuntimeOptions{.threads = 3, .steal_seed = 5}}) {
    const MessageRingResult got = run_message_ring(options, 20, 64, 99);
    EXPECT_EQ(got.values, expected) << "threads " << options.threads;
  }
}

TEST(PointToPoint, SameChannelMessagesMatchInSubmissionOrder) {
  // Two sends on one (peer, tag) channel whose tasks become ready in reverse order: the
  // receiver must still get them in submission order.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Runtime rt(RuntimeOptions{.threads = 2});
  Comm comm(rt, MPI_COMM_WORLD);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  TagSpace tags = comm.allocate_tags("order", 1);
  Handle first = rt.create_handle("first"), second = rt.create_handle("second");
  Handle r1 = rt.create_handle("r1"), r2 = rt.create_handle("r2");
  Handle gate = rt.create_handle("gate");
  int a = 0, b = 0, got1 = -1, got2 = -1;
  // The first message's payload waits for a slow producer; the second is ready at once.
  rt.submit("slow-producer", {write(first), read(gate)}, [&] {
    volatile double x = 0;
    for (int i = 0; i < 2000000; ++i) x = x + 1e-9;
    a = 111;
  });
  rt.submit("fast-producer", {write(second)}, [&] { b = 222; });
  comm.isend(first, &a, sizeof a, right, tags.tag(0));
  comm.isend(second, &b, sizeof b, right, tags.tag(0));
  comm.irecv(r1, &got1, sizeof got1, left, tags.tag(0));
  comm.irecv(r2, &got2, sizeof got2, left, tags.tag(0));
  rt.wait_all();
  EXPECT_EQ(got1, 111);
  EXPECT_EQ(got2, 222);
  EXPECT_EQ(comm.stats().messages_sent, 2u);
  EXPECT_EQ(comm.stats().bytes_sent, 2 * sizeof(int));
}

TEST(PointToPoint, ReceiveOfTheWrongSizeIsReported) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Runtime rt(RuntimeOptions{.threads = 1});
  Comm comm(rt, MPI_COMM_WORLD);
  TagSpace tags = comm.allocate_tags("size", 1);
  Handle hs = rt.create_handle("s"), hr = rt.create_handle("r");
  double out[2] = {1, 2}, in[4] = {};
  comm.isend(hs, out, sizeof out, (rank + 1) % size, tags.tag(0));
  comm.irecv(hr, in, sizeof in, (rank + size - 1) % size, tags.tag(0));
  try {
    rt.wait_all();
    FAIL() << "expected a size mismatch";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 32 bytes, received 16"), std::string::npos)
        << e.what();
  }
  rt.wait_all();
  MPI_Barrier(MPI_COMM_WORLD);
}

// The escape hatch: tasks that post their own MPI operations and bind the requests to
// their completion. The task reading the received value must run only once the receive
// completed, under one and two threads.
TEST(PointToPoint, BoundRequestsHoldTheirTasksUntilTheyComplete) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int threads : {1, 2}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    Comm comm(rt, MPI_COMM_WORLD);
    TagSpace tags = comm.allocate_tags("bind", 1);
    constexpr int kRounds = 20;
    std::int64_t out = 0, in = -1;
    std::vector<std::int64_t> seen;
    Handle ho = rt.create_handle("out"), hi = rt.create_handle("in"), hs = rt.create_handle("seen");
    for (int r = 0; r < kRounds; ++r) {
      rt.submit("produce", {write(ho)}, [&, r] { out = rank * 1000 + r; });
      rt.submit(
          "own_send", {read(ho)},
          [&](TaskContext& ctx) {
            MPI_Request request;
            MPI_Isend(&out, 1, MPI_INT64_T, right, tags.tag(0), MPI_COMM_WORLD, &request);
            comm.bind(ctx, request, CommEvent::Kind::send, right, tags.tag(0), sizeof out);
          },
          Comm::comm_attributes({}));
      rt.submit(
          "own_recv", {write(hi)},
          [&](TaskContext& ctx) {
            MPI_Request request;
            MPI_Irecv(&in, 1, MPI_INT64_T, left, tags.tag(0), MPI_COMM_WORLD, &request);
            comm.bind(ctx, request, CommEvent::Kind::recv, left, tags.tag(0), sizeof in);
          },
          Comm::comm_attributes({}));
      rt.submit("consume", {read(hi), write(hs)}, [&] { seen.push_back(in); });
    }
    rt.wait_all();
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kRounds)) << threads << " threads";
    for (int r = 0; r < kRounds; ++r) {
      EXPECT_EQ(seen[static_cast<std::size_t>(r)], left * 1000 + r) << threads << " threads";
    }
    EXPECT_EQ(comm.stats().messages_sent, static_cast<std::uint64_t>(kRounds));
    EXPECT_EQ(comm.stats().messages_received, static_cast<std::uint64_t>(kRounds));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// bind from a task that any thread may run names the task and the fix; the request stays
// the caller's.
TEST(PointToPoint, BindFromATaskNotSubmittedForTheMainThreadIsRejected) {
  Runtime rt(RuntimeOptions{.threads = 1});
  Comm comm(rt, MPI_COMM_WORLD);
  std::string message;
  rt.submit("stray_bind", {}, [&](TaskContext& ctx) {
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_SELF, &request);
    try {
      comm.bind(ctx, request, CommEvent::Kind::barrier, -1, 0, 0);
    } catch (const std::logic_error& e) {
      message = e.what();
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
  });
  rt.wait_all();
  EXPECT_NE(message.find("task 'stray_bind' was not submitted with Comm::comm_attributes()"),
            std::string::npos)
      << message;
  EXPECT_EQ(comm.stats().collectives, 0u);
}

TEST(Tags, ExhaustingTheTagSpaceNamesThePurpose) {
  Runtime rt;
  Comm comm(rt, MPI_COMM_WORLD);
  int* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  ASSERT_TRUE(found);
  TagSpace halo = comm.allocate_tags("halo", 1000);
  EXPECT_EQ(halo.tag(999), 999);
  EXPECT_THROW(halo.tag(1000), std::out_of_range);
  try {
    comm.allocate_tags("load-balance", *ub);
    FAIL() << "expected exhaustion";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("load-balance"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("MPI_TAG_UB"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera
