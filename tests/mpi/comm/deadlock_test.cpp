// The AceMesh deadlock scenario (Fig. 7 of "AceMesh: a structured data driven programming
// language for high performance computing"): three processes whose send and receive
// tasks have no data dependences among them, so a data-driven scheduler may run them in
// any order. A runtime that blocked a core in a receive could deadlock (every process
// inside a receive whose matching send was scheduled after it). tessera never blocks a
// core in MPI, so every schedule must complete.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tessera/comm/comm.hpp"

namespace tessera {
namespace {

TEST(DeadlockAvoidance, ThreeProcessesCompleteUnderTwoHundredRandomSchedules) {
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size < 3) GTEST_SKIP() << "the scenario needs three processes (runs on 4 ranks)";
  MPI_Comm three;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < 3 ? 0 : MPI_UNDEFINED, world_rank, &three);
  if (three == MPI_COMM_NULL) {
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  int rank = 0;
  MPI_Comm_rank(three, &rank);
  constexpr int kSchedules = 200;
  constexpr int kPeers = 2;
  int completed = 0;
  for (int schedule = 0; schedule < kSchedules; ++schedule) {
    std::mt19937_64 rng(schedule * 7919 + rank);
    const int threads = 1 + static_cast<int>(rng() % 3);
    Runtime rt(RuntimeOptions{.threads = threads, .steal_seed = rng() | 1});
    Comm comm(rt, three);
    TagSpace tags = comm.allocate_tags("exchange", 4);
    // Every process sends one message to each other process and receives one from each,
    // for several tags; tasks are independent and submitted in a random order.
    struct Op {
      bool send;
      int peer;
      int tag;
    };
    std::vector<Op> ops;
    for (int k = 1; k <= kPeers; ++k) {
      for (int t = 0; t < 4; ++t) {
        ops.push_back({true, (rank + k) % 3, tags.tag(t)});
        ops.push_back({false, (rank + 3 - k) % 3, tags.tag(t)});
      }
    }
    std::shuffle(ops.begin(), ops.end(), rng);
    std::vector<long> out(ops.size()), in(ops.size(), -1);
    std::vector<Handle> handles;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      handles.push_back(rt.create_handle("msg"));
      out[i] = 1000 * rank + ops[i].tag;
      if (ops[i].send) {
        comm.isend(handles[i], &out[i], sizeof(long), ops[i].peer, ops[i].tag);
      } else {
        comm.irecv(handles[i], &in[i], sizeof(long), ops[i].peer, ops[i].tag);
      }
    }
    rt.wait_all();
    bool ok = true;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (!ops[i].send) ok &= in[i] == 1000 * ops[i].peer + ops[i].tag;
    }
    EXPECT_TRUE(ok) << "schedule " << schedule;
    completed += ok;
  }
  EXPECT_EQ(completed, kSchedules);
  MPI_Comm_free(&three);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace tessera
