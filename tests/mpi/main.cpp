// Entry point of the MPI test binary, run under mpirun with 1, 2 and 4 ranks. Every
// rank runs every test in the same order; only rank 0 prints gtest's report. A test
// failure on any rank fails the run on all ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {
// Prints results on rank 0 only, to keep logs readable.
void silence_other_ranks() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) return;
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
}
}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  silence_other_ranks();
  int failed = RUN_ALL_TESTS();
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
