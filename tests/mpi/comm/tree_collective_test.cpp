// Collectives as point-to-point trees (TESSERA_COLLECTIVES=tree, an SMPI build's default):
// the same results as MPI's own collectives, on 1..size ranks (3 included on 4).
#include <gtest/gtest.h>
#include <mpi.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"

namespace tessera {
namespace {

// Sets TESSERA_COLLECTIVES for the lifetime of the object (read when a Comm is made).
class CollectivesSetting {
 public:
  explicit CollectivesSetting(const char* value) { setenv("TESSERA_COLLECTIVES", value, 1); }
  ~CollectivesSetting() { unsetenv("TESSERA_COLLECTIVES"); }
  CollectivesSetting(const CollectivesSetting&) = delete;
  CollectivesSetting& operator=(const CollectivesSetting&) = delete;
};

double value_at(std::int64_t i) {
  return std::ldexp(std::sin(0.71 * static_cast<double>(i) + 0.3), static_cast<int>(i % 83) - 41);
}

struct Results {
  std::vector<std::uint64_t> sums;  // bits of each exact sum
  long max = 0;
  long total = 0;
  int after_barrier = 0;
  std::uint64_t collectives = 0;
};

// Several collectives in flight at once on `comm`: `rounds` exact sums whose inputs get
// ready in rank-dependent order, an integer max and sum, and a barrier.
Results run_collectives(MPI_Comm comm, int threads, int rounds) {
  Runtime rt(RuntimeOptions{.threads = threads});
  Comm c(rt, comm);
  const std::int64_t n = 20000;
  std::vector<ExactSum> sums(static_cast<std::size_t>(rounds));
  std::vector<Handle> handles;
  for (int r = 0; r < rounds; ++r) {
    handles.push_back(rt.create_handle("sum"));
    rt.submit("local", {write(handles.back())}, [&, r] {
      if ((c.rank() + r) % 2 == 0) {
        volatile double spin = 0;
        for (int i = 0; i < 200000; ++i) spin = spin + 1e-9;
      }
      for (std::int64_t i = n * c.rank() / c.size(); i < n * (c.rank() + 1) / c.size(); ++i) {
        sums[static_cast<std::size_t>(r)].add(value_at(i + 7919 * r));
      }
    });
    c.iallreduce_sum(handles.back(), &sums[static_cast<std::size_t>(r)]);
  }
  Results out;
  Handle hm = rt.create_handle("max"), ht = rt.create_handle("total"), hb = rt.create_handle("b");
  rt.submit("max", {write(hm)}, [&] { out.max = 10L * c.rank() + 3; });
  rt.submit("total", {write(ht)}, [&] { out.total = c.rank() + 1; });
  c.iallreduce(hm, &out.max, 1, MPI_LONG, MPI_MAX);
  c.iallreduce(ht, &out.total, 1, MPI_LONG, MPI_SUM);
  c.ibarrier(hb);
  rt.submit("after", {read(hb)}, [&] { out.after_barrier = 1; });
  rt.wait_all();
  for (const ExactSum& s : sums) out.sums.push_back(std::bit_cast<std::uint64_t>(s.value()));
  out.collectives = c.stats().collectives;
  return out;
}

TEST(TreeCollectives, GiveMpisResultsOnEveryRankCount) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  constexpr int kRounds = 5;
  for (int k = 1; k <= size; ++k) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub != MPI_COMM_NULL) {
      for (int threads : {1, 2}) {
        Results mpi, tree;
        {
          CollectivesSetting setting("mpi");
          mpi = run_collectives(sub, threads, kRounds);
        }
        {
          CollectivesSetting setting("tree");
          tree = run_collectives(sub, threads, kRounds);
        }
        EXPECT_EQ(tree.sums, mpi.sums) << k << " ranks, " << threads << " threads";
        EXPECT_EQ(tree.max, 10L * (k - 1) + 3);
        EXPECT_EQ(tree.total, static_cast<long>(k) * (k + 1) / 2);
        EXPECT_EQ(tree.after_barrier, 1);
        EXPECT_EQ(tree.collectives, mpi.collectives);
        EXPECT_EQ(tree.collectives, static_cast<std::uint64_t>(kRounds + 3));
      }
      MPI_Comm_free(&sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(TreeCollectives, RejectAnUnknownSetting) {
  CollectivesSetting setting("ring");
  Runtime rt(RuntimeOptions{.threads = 1});
  try {
    Comm c(rt, MPI_COMM_WORLD);
    ADD_FAILURE() << "TESSERA_COLLECTIVES=ring was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("TESSERA_COLLECTIVES"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera
