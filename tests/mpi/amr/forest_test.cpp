// Forest: the p4est wrapper's geometry, neighbour tables (with level jumps, across ranks),
// adapt bookkeeping, partitioning and ghost exchange, checked against brute force.
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

using amr_test::gather_all;
using amr_test::GlobalBlock;
using amr_test::refine_around;

std::tuple<int, std::int64_t, std::int64_t, std::int64_t> key(const BlockPlace& p) {
  return {p.level, p.origin[0], p.origin[1], p.origin[2]};
}

TEST(ForestTest, BrickIsCoveredOnceAndSplitEvenlyAlongTheCurve) {
  Forest forest(MPI_COMM_WORLD, {3, 2, 2});
  EXPECT_EQ(forest.global_count(), 12);
  const auto all = gather_all(forest);
  std::set<std::tuple<int, std::int64_t, std::int64_t, std::int64_t>> seen;
  for (const GlobalBlock& b : all) {
    EXPECT_EQ(b.place.level, 0);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(b.place.origin[a] % kRootLength, 0);
    EXPECT_LT(b.place.origin[0], 3 * kRootLength);
    EXPECT_LT(b.place.origin[1], 2 * kRootLength);
    EXPECT_LT(b.place.origin[2], 2 * kRootLength);
    seen.insert(key(b.place));
  }
  EXPECT_EQ(seen.size(), 12u);
  const auto offsets = forest.global_offsets();
  for (int r = 0; r < forest.size(); ++r)
    EXPECT_LE(offsets[r + 1] - offsets[r], 12 / forest.size() + 1);
  EXPECT_EQ(forest.global_level_counts(2), (std::vector<std::int64_t>{12, 0, 0}));
  const auto box = forest.unit_box(BlockPlace{1, {kRootLength, kRootLength / 2, 0}});
  EXPECT_DOUBLE_EQ(box[0][0], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(box[0][1], 1.5 / 3.0);
  EXPECT_DOUBLE_EQ(box[1][0], 0.25);
  EXPECT_DOUBLE_EQ(box[2][1], 0.25);
}

TEST(ForestTest, FaceNeighborsMatchBruteForceAcrossLevelJumpsAndRanks) {
  Forest forest(MPI_COMM_WORLD, {3, 2, 1});
  refine_around(forest, {0.4, 0.3, 0.6}, 3, 3);
  refine_around(forest, {0.9, 0.9, 0.1}, 2, 3);
  ASSERT_TRUE(forest.is_face_balanced());
  EXPECT_GT(amr_test::expect_neighbors_match_oracle(forest), 0);
}

TEST(ForestTest, AdaptReportsWhereEveryBlockCameFrom) {
  Forest forest(MPI_COMM_WORLD, {2, 2, 1});
  amr_test::expect_split_all_then_merge_back(forest);
}

// Every complete family of 8 sibling leaves lives on one rank.

TEST(ForestTest, PartitionBalancesMovesContiguousRangesAndKeepsFamilies) {
  Forest forest(MPI_COMM_WORLD, {4, 2, 1});
  // Only rank 0 refines: the partition is then very uneven.
  forest.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(forest.local_count()),
                                        forest.rank() == 0 ? 1 : 0));
  const std::int64_t total = forest.global_count();
  std::vector<std::int64_t> weights(static_cast<std::size_t>(forest.local_count()), 1);
  const PartitionResult moves = forest.partition(weights);
  EXPECT_EQ(forest.global_count(), total);
  std::int64_t sent = 0, received = 0;
  for (const BlockTransfer& t : moves.sends) sent += t.count;
  for (const BlockTransfer& t : moves.receives) received += t.count;
  std::int64_t totals[2] = {sent, received};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(totals[0], totals[1]);
  EXPECT_EQ(totals[0], moves.global_moved);
  EXPECT_EQ(moves.kept_count + received, forest.local_count());
  if (forest.size() > 1) {
    EXPECT_GT(moves.global_moved, 0);
  }
  // Balanced up to one family.
  const auto offsets = forest.global_offsets();
  for (int r = 0; r < forest.size(); ++r)
    EXPECT_LE(offsets[r + 1] - offsets[r], total / forest.size() + 8);
  EXPECT_EQ(amr_test::split_families(gather_all(forest), 3), std::vector<std::size_t>{});
}

TEST(ForestTest, GatherFamiliesUnitesAFamilyCompletedByMerges) {
  Forest forest(MPI_COMM_WORLD, {1, 1, 1});
  for (int level = 0; level < 2; ++level) {
    forest.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(forest.local_count()), 1));
    forest.partition();
  }
  // 64 blocks at level 2; merging them all leaves the 8 level-1 blocks where their first
  // children were, so on several ranks their family is split.
  forest.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(forest.local_count()), -1));
  EXPECT_EQ(forest.global_count(), 8);
  int split = 0;
  for (std::int32_t i = 0; i < forest.local_count(); ++i) split += forest.family_first(i) < 0;
  MPI_Allreduce(MPI_IN_PLACE, &split, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(split, forest.size() > 1 ? 8 : 0);
  const PartitionResult moves = forest.gather_families();
  EXPECT_EQ(moves.global_moved > 0, forest.size() > 1);
  const auto all = gather_all(forest);
  EXPECT_EQ(amr_test::split_families(all, 3), std::vector<std::size_t>{});
  for (std::int32_t i = 0; i < forest.local_count(); ++i) EXPECT_EQ(forest.family_first(i), 0);
  EXPECT_EQ(forest.global_level_counts(2), (std::vector<std::int64_t>{0, 8, 0}));
}

TEST(ForestTest, GhostValuesArriveFromTheirOwners) {
  Forest forest(MPI_COMM_WORLD, {2, 2, 2});
  refine_around(forest, {0.3, 0.6, 0.4}, 2, 2);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(forest.local_count()));
  for (std::int32_t i = 0; i < forest.local_count(); ++i)
    ids[static_cast<std::size_t>(i)] = forest.global_offset() + i;
  const std::vector<std::int64_t> ghosts = forest.exchange_ghost_values<std::int64_t>(ids);
  ASSERT_EQ(ghosts.size(), static_cast<std::size_t>(forest.ghost_count()));
  for (std::int32_t g = 0; g < forest.ghost_count(); ++g)
    EXPECT_EQ(ghosts[static_cast<std::size_t>(g)], forest.global_index(BlockRef{true, g}));
  if (forest.size() > 1) {
    int any = forest.ghost_count() > 0;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(any, 1);
  }
}

}  // namespace
}  // namespace tessera
