// The block pairs between two multigrid levels are found from a rank's own blocks, without
// a loop over all fine blocks: the same pairs, in the same order, as scanning every fine
// block of small meshes (the brute-force reference), and rank r's pairs of a 1024^3-block
// level over 2^20 ranks in memory independent of the global block count.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <vector>

#include "tessera/mesh/level_transfer.hpp"
#include "tessera/mesh/morton.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera {
namespace {

long level_pairs_peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// The reference: every fine block of the grid with the coarse block over it, kept when
// either lives on this rank (what LevelTransfer did before it worked from local blocks).
std::vector<LevelPair> every_pair_touching(const UniformMesh& fine, const UniformMesh& coarse) {
  std::vector<LevelPair> pairs;
  for (GlobalBlockId id = 0; id < fine.global_block_count(); ++id) {
    const Int3 fc = fine.block_coord(id);
    LevelPair pair;
    Int3 cc;
    for (int a = 0; a < 3; ++a) {
      const int r = fine.blocks()[a] / coarse.blocks()[a];
      cc[a] = fc[a] / r;
      pair.child |= (fc[a] % r) << a;
    }
    pair.fine_id = id;
    pair.coarse_id = coarse.block_id(cc);
    pair.fine_rank = fine.owner(id);
    pair.coarse_rank = coarse.owner(pair.coarse_id);
    if (pair.fine_rank == fine.rank() || pair.coarse_rank == fine.rank()) pairs.push_back(pair);
  }
  return pairs;
}

void expect_same_pairs(const std::vector<LevelPair>& got, const std::vector<LevelPair>& want,
                       int rank) {
  ASSERT_EQ(got.size(), want.size()) << "rank " << rank;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].fine_id, want[i].fine_id) << "rank " << rank << " pair " << i;
    EXPECT_EQ(got[i].coarse_id, want[i].coarse_id) << "rank " << rank << " pair " << i;
    EXPECT_EQ(got[i].fine_rank, want[i].fine_rank) << "rank " << rank << " pair " << i;
    EXPECT_EQ(got[i].coarse_rank, want[i].coarse_rank) << "rank " << rank << " pair " << i;
    EXPECT_EQ(got[i].child, want[i].child) << "rank " << rank << " pair " << i;
  }
}

TEST(LevelPairs, EveryRankMatchesScanningEveryFineBlock) {
  struct Case {
    Int3 fine_blocks;
    Int3 coarse_blocks;
    Int3 block_cells;
  };
  // Halved on every axis, on some axes only, a flat z axis, and a coarse level of one block.
  const Case cases[] = {
      {{8, 6, 4}, {4, 3, 2}, {4, 4, 4}}, {{6, 4, 4}, {3, 4, 2}, {4, 4, 4}},
      {{8, 8, 1}, {4, 4, 1}, {4, 4, 1}}, {{2, 2, 2}, {1, 1, 1}, {2, 2, 2}},
      {{5, 7, 3}, {5, 7, 3}, {4, 4, 4}},
  };
  for (const Case& c : cases) {
    for (bool periodic : {false, true}) {
      const Periodicity wrap = periodic ? Periodicity::all() : Periodicity{};
      for (int ranks : {1, 3, 7, 64, 1000}) {
        for (int rank = 0; rank < ranks; ++rank) {
          const UniformMesh fine(c.fine_blocks, c.block_cells, 1, rank, ranks, wrap);
          const UniformMesh coarse(c.coarse_blocks, c.block_cells, 1, rank, ranks, wrap);
          expect_same_pairs(local_level_pairs(fine, coarse), every_pair_touching(fine, coarse),
                            rank);
        }
      }
    }
  }
}

TEST(LevelPairs, RejectsLevelsThatDoNotPair) {
  const UniformMesh fine({8, 8, 8}, {4, 4, 4}, 1, 0, 1);
  EXPECT_THROW(local_level_pairs(fine, UniformMesh({2, 8, 8}, {4, 4, 4}, 1, 0, 1)),
               std::invalid_argument);
  EXPECT_THROW(local_level_pairs(fine, UniformMesh({3, 8, 8}, {4, 4, 4}, 1, 0, 1)),
               std::invalid_argument);
}

// On power-of-two cubes a block's curve position is its Morton code and a child's code is
// its parent's times 8 plus its child index: an independent reference for levels far too
// large to scan.
TEST(LevelPairs, ShareOfA1024CubedLevelOver2To20RanksNeedsNoGlobalLoop) {
  const int ranks = 1 << 20;
  const auto code_of = [](Int3 c) {
    return static_cast<std::int64_t>(morton_encode(static_cast<std::uint32_t>(c.x),
                                                   static_cast<std::uint32_t>(c.y),
                                                   static_cast<std::uint32_t>(c.z)));
  };
  // 1024^3 over 512^3 blocks (every rank owns 1024 fine and 128 coarse blocks), and 64^3
  // over 32^3 (fewer blocks than ranks: the first ranks own one block each, and coarse
  // block 0's children live on ranks 0..7).
  for (int edge : {1024, 64}) {
    const Int3 fine_blocks{edge, edge, edge};
    const Int3 coarse_blocks{edge / 2, edge / 2, edge / 2};
    const std::int64_t fine_n = product(fine_blocks), coarse_n = product(coarse_blocks);
    const auto fine_owner = [&](std::int64_t code) {
      return balanced_range_owner(fine_n, ranks, code);
    };
    const auto coarse_owner = [&](std::int64_t code) {
      return balanced_range_owner(coarse_n, ranks, code);
    };
    for (int rank : {0, 5, (1 << 19) + 3, ranks - 1}) {
      const long rss_before = level_pairs_peak_rss_kb();
      const UniformMesh fine(fine_blocks, {16, 16, 16}, 1, rank, ranks, Periodicity::all());
      const UniformMesh coarse(coarse_blocks, {16, 16, 16}, 1, rank, ranks, Periodicity::all());
      const std::vector<LevelPair> pairs = local_level_pairs(fine, coarse);
      // Scanning 2^30 fine blocks took minutes; this rank's ~1200 pairs take well under 1 MB.
      EXPECT_LT(level_pairs_peak_rss_kb() - rss_before, 32 * 1024) << "rank " << rank;

      std::int64_t expected = fine.local_block_count();
      for (const MeshBlock& block : coarse.local_blocks()) {
        for (int child = 0; child < 8; ++child)
          expected += fine_owner(block.curve_index * 8 + child) != rank;
      }
      ASSERT_EQ(static_cast<std::int64_t>(pairs.size()), expected) << "rank " << rank;
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const LevelPair& p = pairs[i];
        if (i > 0) {
          EXPECT_LT(pairs[i - 1].fine_id, p.fine_id);
        }
        const Int3 fc = fine.block_coord(p.fine_id);
        const Int3 cc = coarse.block_coord(p.coarse_id);
        EXPECT_EQ(cc.x, fc.x / 2);
        EXPECT_EQ(cc.y, fc.y / 2);
        EXPECT_EQ(cc.z, fc.z / 2);
        EXPECT_EQ(p.child, (fc.x % 2) | (fc.y % 2) << 1 | (fc.z % 2) << 2);
        EXPECT_EQ(code_of(fc), code_of(cc) * 8 + p.child);
        EXPECT_EQ(p.fine_rank, fine_owner(code_of(fc)));
        EXPECT_EQ(p.coarse_rank, coarse_owner(code_of(cc)));
        EXPECT_TRUE(p.fine_rank == rank || p.coarse_rank == rank);
      }
    }
  }
}

}  // namespace
}  // namespace tessera
