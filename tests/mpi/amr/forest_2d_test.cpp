// Forest in 2-D (p4est's quadtrees): geometry, neighbour tables across level jumps and
// ranks (checked against brute force), split into 4 and merge, 2:1 balance of the marks
// from random wishes, partitions that keep families of 4 together, periodic wrap-around.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "forest_oracle.hpp"
#include "tessera/amr/forest.hpp"
#include "tessera/amr/marking.hpp"

namespace tessera {
namespace {

using amr_test::expect_neighbors_match_oracle;
using amr_test::gather_all;
using amr_test::GlobalBlock;
using amr_test::refine_around;

// Every complete family of 4 sibling leaves lives on one rank.

TEST(Forest2dTest, BrickIsCoveredOnceAndBlocksSpanTheWholeHeight) {
  Forest forest(MPI_COMM_WORLD, {3, 2, 1}, {}, 2);
  EXPECT_EQ(forest.dim(), 2);
  EXPECT_EQ(forest.children(), 4);
  EXPECT_EQ(forest.global_count(), 6);
  std::set<std::tuple<std::int64_t, std::int64_t>> seen;
  for (const GlobalBlock& b : gather_all(forest)) {
    EXPECT_EQ(b.place.level, 0);
    EXPECT_EQ(b.place.origin[2], 0);
    seen.insert({b.place.origin[0], b.place.origin[1]});
  }
  EXPECT_EQ(seen.size(), 6u);
  const auto box = forest.unit_box(BlockPlace{2, {kRootLength, kRootLength / 4, 0}});
  EXPECT_DOUBLE_EQ(box[0][0], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(box[0][1], 1.25 / 3.0);
  EXPECT_DOUBLE_EQ(box[1][0], 0.125);
  EXPECT_DOUBLE_EQ(box[1][1], 0.25);
  EXPECT_DOUBLE_EQ(box[2][0], 0.0);
  EXPECT_DOUBLE_EQ(box[2][1], 1.0);
  EXPECT_THROW(Forest(MPI_COMM_WORLD, {2, 2, 2}, {}, 2), std::invalid_argument);
}

TEST(Forest2dTest, FaceNeighborsMatchBruteForceAcrossLevelJumpsAndRanks) {
  Forest forest(MPI_COMM_WORLD, {3, 2, 1}, {}, 2);
  refine_around(forest, {0.4, 0.3}, 3, 3);
  refine_around(forest, {0.9, 0.9}, 2, 3);
  ASSERT_TRUE(forest.is_face_balanced());
  EXPECT_GT(expect_neighbors_match_oracle(forest), 0);
}

TEST(Forest2dTest, PeriodicBrickWrapsAroundAcrossLevelJumps) {
  Forest forest(MPI_COMM_WORLD, {2, 2, 1}, {true, true, true}, 2);
  EXPECT_FALSE(forest.periodic()[2]);  // a 2-D forest has no z wrap
  refine_around(forest, {0.01, 0.01}, 2, 2);
  ASSERT_TRUE(forest.is_face_balanced());
  EXPECT_GT(expect_neighbors_match_oracle(forest), 0);
  for (std::int32_t i = 0; i < forest.local_count(); ++i)
    for (int f = 0; f < 4; ++f) EXPECT_NE(forest.neighbors(i, f).kind, FaceKind::boundary);
}

TEST(Forest2dTest, SplitMakesFourChildrenAndMergeTakesThemBack) {
  Forest forest(MPI_COMM_WORLD, {2, 2, 1}, {}, 2);
  amr_test::expect_split_all_then_merge_back(forest);
}

TEST(Forest2dTest, BalancedMarksFromRandomWishesKeepTwoToOneBalance) {
  Forest forest(MPI_COMM_WORLD, {2, 1, 1}, {true, false, false}, 2);
  std::int64_t splits = 0, merges = 0;
  for (int round = 0; round < 8; ++round) {
    forest.gather_families();
    // Wishes depend on the block's parent and the round only (so siblings agree and
    // families can merge), not on the rank count.
    std::vector<std::int8_t> wishes(static_cast<std::size_t>(forest.local_count()));
    for (std::int32_t i = 0; i < forest.local_count(); ++i) {
      const BlockPlace& p = forest.local(i);
      const std::int64_t parent = 2 * p.length();
      const std::int64_t h =
          (p.origin[0] / parent * 31 + p.origin[1] / parent * 17 + p.level * 7 + round) % 3;
      wishes[static_cast<std::size_t>(i)] = h == 0 ? 1 : h == 1 ? -1 : 0;
    }
    const AdaptResult r = forest.adapt(balanced_marks(forest, wishes, 4));
    splits += r.refined;
    merges += r.merged;
    ASSERT_TRUE(forest.is_face_balanced()) << "round " << round;
    forest.partition();
    EXPECT_EQ(amr_test::split_families(gather_all(forest), 2), std::vector<std::size_t>{});
    expect_neighbors_match_oracle(forest);
  }
  std::int64_t totals[2] = {splits, merges};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(totals[0], 0);
  EXPECT_GT(totals[1], 0);
}

TEST(Forest2dTest, StoredLeavesRebuildTheSameForestOnAnyPartition) {
  Forest forest(MPI_COMM_WORLD, {2, 2, 1}, {}, 2);
  refine_around(forest, {0.3, 0.7}, 3, 3);
  std::vector<BlockPlace> leaves;
  for (const GlobalBlock& b : gather_all(forest)) leaves.push_back(b.place);
  Forest rebuilt(MPI_COMM_WORLD, {2, 2, 1}, leaves, {}, {}, 2);
  ASSERT_EQ(rebuilt.global_count(), static_cast<std::int64_t>(leaves.size()));
  std::vector<BlockPlace> again;
  for (const GlobalBlock& b : gather_all(rebuilt)) again.push_back(b.place);
  EXPECT_EQ(again, leaves);
  leaves.pop_back();
  EXPECT_THROW(Forest(MPI_COMM_WORLD, {2, 2, 1}, leaves, {}, {}, 2), std::invalid_argument);
}

TEST(Forest2dTest, GhostValuesArriveFromTheirOwners) {
  Forest forest(MPI_COMM_WORLD, {2, 2, 1}, {}, 2);
  refine_around(forest, {0.3, 0.6}, 2, 2);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(forest.local_count()));
  for (std::int32_t i = 0; i < forest.local_count(); ++i)
    ids[static_cast<std::size_t>(i)] = forest.global_offset() + i;
  const std::vector<std::int64_t> ghosts = forest.exchange_ghost_values<std::int64_t>(ids);
  ASSERT_EQ(ghosts.size(), static_cast<std::size_t>(forest.ghost_count()));
  for (std::int32_t g = 0; g < forest.ghost_count(); ++g)
    EXPECT_EQ(ghosts[static_cast<std::size_t>(g)], forest.global_index(BlockRef{true, g}));
}

}  // namespace
}  // namespace tessera
