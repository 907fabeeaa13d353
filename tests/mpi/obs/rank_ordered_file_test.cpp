// RankOrderedFile on 1, 2 and 4 ranks: rounds land in order and, within a round, the
// ranks' pieces in rank order, even when ranks need different numbers of rounds; a bad
// path fails on every rank; an abandoned file leaves nothing behind.
#include "obs/rank_ordered_file.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "observed_program.hpp"

namespace tessera::obs {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Rank r writes r + 1 rounds; round k's piece is "<r.k>" (empty when r has no round k).
std::string piece(int rank, int round) {
  return round <= rank ? fmt::format("<{}.{}>", rank, round) : std::string();
}

TEST(RankOrderedFile, WritesRoundsInOrderAndRanksInOrderWithinARound) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string path = obs_test::shared_trace_path("rank_ordered_np" + std::to_string(size));
  {
    RankOrderedFile file(path, "--test", MPI_COMM_WORLD);
    int rounds = 0;
    for (bool any_more = true; any_more; ++rounds) {
      any_more = file.append_round(piece(rank, rounds), rounds < rank);
    }
    EXPECT_EQ(rounds, size) << "every rank stops when the last rank is done";
    file.commit();
  }
  if (rank == 0) {
    std::string expected;
    for (int round = 0; round < size; ++round) {
      for (int r = 0; r < size; ++r) expected += piece(r, round);
    }
    EXPECT_EQ(read_text(path), expected);
  }
  obs_test::remove_trace(path);
}

TEST(RankOrderedFile, BadPathFailsOnEveryRankNamingThePath) {
  const std::string path = "/nonexistent-tessera-dir/out.json";
  try {
    RankOrderedFile file(path, "--test", MPI_COMM_WORLD);
    ADD_FAILURE() << "opening " << path << " did not fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--test: cannot write '" + path + "'"), std::string::npos)
        << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(RankOrderedFile, UncommittedFileLeavesNothingBehind) {
  const std::string path = obs_test::shared_trace_path("rank_ordered_abandoned");
  {
    RankOrderedFile file(path, "--test", MPI_COMM_WORLD);
    file.append_round("text", false);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const std::string stem = std::filesystem::path(path).filename().string();
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_NE(entry.path().filename().string().rfind(stem, 0), 0u) << entry.path();
  }
}

}  // namespace
}  // namespace tessera::obs
