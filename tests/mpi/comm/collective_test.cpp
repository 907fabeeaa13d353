// Collectives as tasks; the exact all-reduce gives the same bits for any rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "tessera/comm/comm.hpp"

namespace tessera {
namespace {

// The global data set: value i is a deterministic function of i with a wide range of
// magnitudes and signs, so naive summation order changes the result.
double global_value(std::int64_t i) {
  const double m = std::sin(0.37 * static_cast<double>(i) + 1.0);
  return std::ldexp(m, static_cast<int>(i % 61) - 30);
}

// Sums values [0, n) distributed over the ranks of `comm` in contiguous chunks, adding
// this rank's values in a shuffled order.
double reproducible_total(MPI_Comm comm, std::int64_t n, int threads, std::uint64_t seed) {
  Runtime rt(RuntimeOptions{.threads = threads});
  Comm c(rt, comm);
  const std::int64_t begin = n * c.rank() / c.size(), end = n * (c.rank() + 1) / c.size();
  std::vector<std::int64_t> order;
  for (std::int64_t i = begin; i < end; ++i) order.push_back(i);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  ExactSum sum;
  Handle h = rt.create_handle("sum");
  rt.submit("local", {write(h)}, [&] {
    for (std::int64_t i : order) sum.add(global_value(i));
  });
  c.iallreduce_sum(h, &sum);
  rt.wait_for(h);
  return sum.value();
}

TEST(Collectives, ExactAllreduceHasTheSameBitsOnOneTwoThreeAndFourRanks) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  constexpr std::int64_t n = 100000;
  ExactSum reference;
  for (std::int64_t i = n - 1; i >= 0; --i) reference.add(global_value(i));
  const auto expected = std::bit_cast<std::uint64_t>(reference.value());
  // Sub-communicators of 1..size ranks (so 3 ranks is covered when running on 4).
  for (int k = 1; k <= size; ++k) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub != MPI_COMM_NULL) {
      for (int threads : {1, 2}) {
        const double got = reproducible_total(sub, n, threads, 1234 + k);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(got), expected) << k << " ranks";
      }
      MPI_Comm_free(&sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  // Naive double summation of the same data in another order differs in the last bits:
  // evidence that the test data can tell reproducible from non-reproducible sums.
  double naive_forward = 0, naive_backward = 0;
  for (std::int64_t i = 0; i < n; ++i) naive_forward += global_value(i);
  for (std::int64_t i = n - 1; i >= 0; --i) naive_backward += global_value(i);
  EXPECT_NE(std::bit_cast<std::uint64_t>(naive_forward),
            std::bit_cast<std::uint64_t>(naive_backward));
}

TEST(Collectives, IndependentCollectivesArePostedInSubmissionOrderOnEveryRank) {
  // Two independent all-reduces whose inputs become ready in opposite orders on even and
  // odd ranks: posting must still follow submission order, or MPI would mismatch them.
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Runtime rt(RuntimeOptions{.threads = 2});
  Comm comm(rt, MPI_COMM_WORLD);
  Handle ha = rt.create_handle("a"), hb = rt.create_handle("b");
  long a = 0, b = 0;
  auto slow = [] {
    volatile double x = 0;
    for (int i = 0; i < 3000000; ++i) x = x + 1e-9;
  };
  rt.submit("make-a", {write(ha)}, [&] {
    if (rank % 2 == 0) slow();
    a = 1;
  });
  rt.submit("make-b", {write(hb)}, [&] {
    if (rank % 2 == 1) slow();
    b = 1000;
  });
  comm.iallreduce(ha, &a, 1, MPI_LONG, MPI_SUM);
  comm.iallreduce(hb, &b, 1, MPI_LONG, MPI_SUM);
  rt.wait_all();
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(a, size);
  EXPECT_EQ(b, 1000L * size);
}

TEST(Collectives, BarrierTaskCompletesOnEveryRank) {
  Runtime rt(RuntimeOptions{.threads = 2});
  Comm comm(rt, MPI_COMM_WORLD);
  Handle h = rt.create_handle("barrier");
  int after = 0;
  comm.ibarrier(h);
  rt.submit("after", {read(h)}, [&] { after = 1; });
  rt.wait_all();
  EXPECT_EQ(after, 1);
  EXPECT_EQ(comm.stats().collectives, 1u);
}

}  // namespace
}  // namespace tessera
