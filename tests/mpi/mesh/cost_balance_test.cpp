// Cost balance across ranks: the gathered weighted split gives faster ranks more blocks and
// the same counts on every rank; BlockMigration moves every block's values to its new owner.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "tessera/amr/carried_costs.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/block_migration.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/mesh/weighted_split.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Every rank gets the counts every other rank got.
void expect_same_on_every_rank(const std::vector<std::int64_t>& counts) {
  std::vector<std::int64_t> first = counts;
  MPI_Bcast(first.data(), static_cast<int>(first.size()), MPI_INT64_T, 0, MPI_COMM_WORLD);
  EXPECT_EQ(counts, first);
}

TEST(CostBalance, TheLastRankTwiceAsFastGetsTwiceTheBlocks) {
  const int ranks = world_size(), me = world_rank();
  const std::vector<double> costs(6, 2.5);  // 6 blocks of equal cost on every rank
  const double speed = me == ranks - 1 && ranks > 1 ? 2.0 : 1.0;
  const std::vector<std::int64_t> counts = cost_balanced_counts(MPI_COMM_WORLD, costs, speed);
  ASSERT_EQ(counts.size(), static_cast<std::size_t>(ranks));
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}), 6 * ranks);
  expect_same_on_every_rank(counts);
  if (ranks > 1) {
    // Speeds 1, ..., 1, 2 over 6 P blocks: the last rank's share is 12 P / (P + 1), the
    // others' 6 P / (P + 1), each within one block.
    const double unit = 6.0 * ranks / (ranks + 1);
    EXPECT_NEAR(static_cast<double>(counts[ranks - 1]), 2 * unit, 1.0);
    EXPECT_NEAR(static_cast<double>(counts[0]), unit, 1.0);
  }
}

TEST(CostBalance, RanksThatMeasuredNothingGetTheMeans) {
  const int ranks = world_size(), me = world_rank();
  // Rank 0 measured nothing; the others 4 blocks of cost 1 at speed 3.
  const std::vector<double> costs(4, me == 0 ? 0.0 : 1.0);
  const std::vector<std::int64_t> counts =
      cost_balanced_counts(MPI_COMM_WORLD, costs, me == 0 ? 0.0 : 3.0);
  EXPECT_EQ(counts, std::vector<std::int64_t>(static_cast<std::size_t>(ranks), 4));
}

TEST(CostBalance, WithNoMeasurementThePartitionStays) {
  const int ranks = world_size(), me = world_rank();
  // Uneven current counts: rank r holds r + 1 blocks, none measured.
  const std::vector<double> costs(static_cast<std::size_t>(me + 1), 0.0);
  std::vector<std::int64_t> expected(static_cast<std::size_t>(ranks));
  std::iota(expected.begin(), expected.end(), std::int64_t{1});
  EXPECT_EQ(cost_balanced_counts(MPI_COMM_WORLD, costs, 0.0), expected);
}

TEST(CostBalance, BlockMigrationMovesEveryBlockToItsNewOwner) {
  const int ranks = world_size(), me = world_rank();
  Runtime runtime{RuntimeOptions{.threads = 2}};
  Comm comm{runtime, MPI_COMM_WORLD};
  const Int3 blocks{4, 3, 2}, cells{3, 2, 4};
  const UniformMesh old_mesh(blocks, cells, 1, me, ranks);
  // The new partition: the last rank takes half the blocks, the others share the rest.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 0);
  const std::int64_t n = old_mesh.global_block_count();
  counts[ranks - 1] = ranks > 1 ? n / 2 : n;
  for (std::int64_t i = 0; i < n - counts[ranks - 1]; ++i) ++counts[i % (ranks - 1)];
  const UniformMesh new_mesh(blocks, cells, 1, me, ranks, {}, counts);
  BlockField from(old_mesh, runtime, "from", 2);
  BlockField to(new_mesh, runtime, "to", 2);
  const auto value = [&](GlobalBlockId id, int v, int i, int j, int k) {
    return static_cast<double>(id * 1000 + v * 100 + i * 16 + j * 4 + k);
  };
  const BlockLayout& layout = from.layout();
  for (LocalBlockIndex b = 0; b < old_mesh.local_block_count(); ++b)
    for (int v = 0; v < 2; ++v)
      for (int k = 0; k < cells.z; ++k)
        for (int j = 0; j < cells.y; ++j)
          for (int i = 0; i < cells.x; ++i)
            from.data(b)[layout.index(v, i, j, k)] = value(old_mesh.local_block(b).id, v, i, j, k);
  const TagSpace tags = comm.allocate_tags("migration", 1);
  std::int64_t sent = 0;
  {
    const BlockMigration migration(comm, from, to, tags);
    sent = migration.blocks_sent();
    runtime.wait_all();
  }
  std::int64_t leaving = 0;
  for (const MeshBlock& b : old_mesh.local_blocks()) leaving += new_mesh.owner(b.id) != me;
  EXPECT_EQ(sent, leaving);
  for (LocalBlockIndex b = 0; b < new_mesh.local_block_count(); ++b)
    for (int v = 0; v < 2; ++v)
      for (int k = 0; k < cells.z; ++k)
        for (int j = 0; j < cells.y; ++j)
          for (int i = 0; i < cells.x; ++i)
            ASSERT_EQ(to.data(b)[layout.index(v, i, j, k)],
                      value(new_mesh.local_block(b).id, v, i, j, k))
                << "block " << new_mesh.local_block(b).id;
}

TEST(CostBalance, CostsFollowTheirBlocksToTheirNewRanks) {
  const int ranks = world_size(), me = world_rank();
  // Rank r holds r + 2 blocks; block g of the curve costs g + 0.5. Afterwards the last rank
  // holds every block but one per other rank.
  std::vector<std::int64_t> before(1, 0), after(1, 0);
  for (int r = 0; r < ranks; ++r) before.push_back(before.back() + r + 2);
  const std::int64_t total = before.back();
  for (int r = 0; r < ranks; ++r) after.push_back(r + 1 < ranks ? r + 1 : total);
  std::vector<double> mine;
  for (std::int64_t g = before[me]; g < before[me + 1]; ++g) mine.push_back(g + 0.5);
  const std::vector<double> moved = costs_after_partition(MPI_COMM_WORLD, before, after, mine);
  std::vector<double> expected;
  for (std::int64_t g = after[me]; g < after[me + 1]; ++g) expected.push_back(g + 0.5);
  EXPECT_EQ(moved, expected);
  // Offsets that do not end at the same total are refused on every rank.
  std::vector<std::int64_t> short_after = after;
  short_after.back() -= 1;
  EXPECT_THROW(costs_after_partition(MPI_COMM_WORLD, before, short_after, mine),
               std::invalid_argument);
}

TEST(CostBalance, TheSplitPredictsTheCurrentAndTheBalancedStep) {
  const int ranks = world_size(), me = world_rank();
  // 12 blocks of cost 1 per rank; the last rank twice as fast: its share of 12 P blocks is
  // 24 P / (P + 1), the others' 12 P / (P + 1), each within a block, under 12 for P > 1.
  const std::vector<double> costs(12, 1.0);
  const double speed = me == ranks - 1 && ranks > 1 ? 2.0 : 1.0;
  const CostSplit split = cost_balanced_split(MPI_COMM_WORLD, costs, speed);
  EXPECT_EQ(split.current, std::vector<std::int64_t>(static_cast<std::size_t>(ranks), 12));
  EXPECT_EQ(split.costs, std::vector<double>(12 * static_cast<std::size_t>(ranks), 1.0));
  EXPECT_DOUBLE_EQ(split.current_time, 12.0);
  EXPECT_LE(split.balanced_time, split.current_time);
  EXPECT_EQ(split.worth_moving(0.05), ranks > 1);
}

}  // namespace
}  // namespace tessera
