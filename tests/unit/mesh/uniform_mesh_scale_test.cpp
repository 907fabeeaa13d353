// A rank's share of a uniform mesh is built without any table over all blocks: the same
// partition and neighbours as sorting every block by Morton code (checked against that
// brute-force reference on small meshes), and a 1024^3-block mesh over 2^20 ranks built in
// memory independent of the global block count.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "tessera/mesh/morton.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera {
namespace {

/// The reference: every block of the grid sorted by Morton code (what UniformMesh did
/// before it computed positions from coordinates).
struct SortedCurve {
  std::vector<GlobalBlockId> block_at;  // by curve position
  std::vector<std::int64_t> position;   // by global id

  explicit SortedCurve(Int3 blocks) {
    const std::int64_t n = product(blocks);
    std::vector<std::pair<std::uint64_t, GlobalBlockId>> keyed;
    for (GlobalBlockId id = 0; id < n; ++id) {
      const auto x = static_cast<std::uint32_t>(id % blocks.x);
      const auto y = static_cast<std::uint32_t>(id / blocks.x % blocks.y);
      const auto z = static_cast<std::uint32_t>(id / (std::int64_t{blocks.x} * blocks.y));
      keyed.emplace_back(morton_encode(x, y, z), id);
    }
    std::sort(keyed.begin(), keyed.end());
    position.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      block_at.push_back(keyed[i].second);
      position[keyed[i].second] = i;
    }
  }
};

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(MortonGrid, CountBeforeMatchesCountingEveryBlock) {
  for (Int3 extent :
       {Int3{1, 1, 1}, Int3{5, 3, 1}, Int3{13, 7, 10}, Int3{8, 8, 8}, Int3{1, 9, 2}}) {
    const MortonGrid grid(extent);
    const SortedCurve reference(extent);
    std::vector<std::uint64_t> codes;
    for (GlobalBlockId id : reference.block_at) {
      const std::int64_t x = id % extent.x, y = id / extent.x % extent.y;
      const std::int64_t z = id / (std::int64_t{extent.x} * extent.y);
      codes.push_back(morton_encode(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y),
                                    static_cast<std::uint32_t>(z)));
    }
    // Every code of the enclosing cube, in or outside the grid.
    for (std::uint64_t code = 0; code < 4096 + 8; ++code) {
      const auto expected = std::lower_bound(codes.begin(), codes.end(), code) - codes.begin();
      ASSERT_EQ(grid.count_before(code), expected)
          << "extent " << extent.x << " " << extent.y << " " << extent.z << " code " << code;
    }
    for (std::int64_t first = 0; first <= grid.count(); first += 3) {
      for (std::int64_t end : {first, std::min(first + 1, grid.count()),
                               std::min(first + 17, grid.count()), grid.count()}) {
        const std::vector<Int3> range = grid.blocks_in_range(first, end);
        ASSERT_EQ(static_cast<std::int64_t>(range.size()), end - first);
        for (std::int64_t i = first; i < end; ++i) {
          const Int3 c = range[i - first];
          EXPECT_EQ(c.x + std::int64_t{extent.x} * (c.y + std::int64_t{extent.y} * c.z),
                    reference.block_at[i]);
        }
      }
    }
  }
}

TEST(UniformMeshScale, EveryRankShareMatchesTheSortAllBlocksReference) {
  for (Int3 blocks : {Int3{13, 7, 10}, Int3{16, 16, 16}, Int3{33, 2, 1}, Int3{1, 1, 1}}) {
    const SortedCurve reference(blocks);
    const std::int64_t n = product(blocks);
    for (int ranks : {1, 3, 7, 64, 1000}) {
      for (int rank = 0; rank < ranks; ++rank) {
        const UniformMesh mesh(blocks, {2, 2, 2}, 1, rank, ranks);
        const std::int64_t first = balanced_range_begin(n, ranks, rank);
        const std::int64_t end = balanced_range_begin(n, ranks, rank + 1);
        ASSERT_EQ(mesh.local_block_count(), end - first);
        for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
          const MeshBlock& block = mesh.local_block(b);
          ASSERT_EQ(block.id, reference.block_at[first + b]);
          EXPECT_EQ(block.curve_index, first + b);
          bool skeleton_faces = false, skeleton_full = false;
          for (int index = 0; index < Direction::kCount; ++index) {
            const Direction d = Direction::from_index(index);
            const GlobalBlockId nb = mesh.neighbour(block.coord, d);
            ASSERT_EQ(block.neighbour[index], nb);
            if (nb == kNoBlock) {
              EXPECT_EQ(block.neighbour_rank[index], -1);
              EXPECT_EQ(block.neighbour_local[index], kNotLocal);
              continue;
            }
            const std::int64_t p = reference.position[nb];
            const int owner = balanced_range_owner(n, ranks, p);
            EXPECT_EQ(block.neighbour_rank[index], owner);
            EXPECT_EQ(block.neighbour_local[index],
                      owner == rank ? static_cast<LocalBlockIndex>(p - first) : kNotLocal);
            if (owner != rank) {
              skeleton_full = true;
              skeleton_faces = skeleton_faces || d.order() == 1;
            }
          }
          EXPECT_EQ(block.skeleton_faces, skeleton_faces);
          EXPECT_EQ(block.skeleton_full, skeleton_full);
        }
        if (rank % 5 == 0) {
          for (GlobalBlockId id = 0; id < n; ++id) {
            ASSERT_EQ(mesh.curve_index(id), reference.position[id]);
            ASSERT_EQ(mesh.owner(id), balanced_range_owner(n, ranks, reference.position[id]));
          }
        }
      }
    }
  }
}

// On a power-of-two cube the curve position of a block is its Morton code: an independent
// reference for a mesh far too large to sort.
TEST(UniformMeshScale, ShareOfA1024CubedMeshOver2To20RanksNeedsNoGlobalTable) {
  const Int3 blocks{1024, 1024, 1024};
  const int ranks = 1 << 20;
  const std::int64_t n = product(blocks);
  for (int rank : {0, 5, (1 << 19) + 3, ranks - 1}) {
    const long rss_before = peak_rss_kb();
    const UniformMesh mesh(blocks, {16, 16, 16}, 1, rank, ranks);
    const long rss_growth_kb = peak_rss_kb() - rss_before;
    // Sorting all 2^30 blocks took ~16 GB; this rank's 1024 blocks take ~0.4 MB.
    EXPECT_LT(rss_growth_kb, 32 * 1024) << "rank " << rank;
    ASSERT_EQ(mesh.local_block_count(), n / ranks);
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      const MeshBlock& block = mesh.local_block(b);
      const auto code = static_cast<std::int64_t>(morton_encode(
          static_cast<std::uint32_t>(block.coord.x), static_cast<std::uint32_t>(block.coord.y),
          static_cast<std::uint32_t>(block.coord.z)));
      ASSERT_EQ(code, std::int64_t{rank} * (n / ranks) + b);
      ASSERT_EQ(block.curve_index, code);
      EXPECT_EQ(mesh.owner(block.id), rank);
      for (int index = 0; index < Direction::kCount; ++index) {
        const GlobalBlockId nb = block.neighbour[index];
        if (nb == kNoBlock) continue;
        const Int3 c = mesh.block_coord(nb);
        const auto nb_code = static_cast<std::int64_t>(
            morton_encode(static_cast<std::uint32_t>(c.x), static_cast<std::uint32_t>(c.y),
                          static_cast<std::uint32_t>(c.z)));
        EXPECT_EQ(block.neighbour_rank[index], nb_code / (n / ranks));
      }
    }
  }
  // A grid that is no power of two: positions stay consecutive along the share and owners
  // agree with the ranges.
  const Int3 odd{1000, 999, 1001};
  const std::int64_t odd_n = product(odd);
  for (int rank : {0, 77777, ranks - 1}) {
    const long rss_before = peak_rss_kb();
    const UniformMesh mesh(odd, {8, 8, 8}, 1, rank, ranks);
    EXPECT_LT(peak_rss_kb() - rss_before, 32 * 1024) << "rank " << rank;
    const std::int64_t first = balanced_range_begin(odd_n, ranks, rank);
    ASSERT_EQ(mesh.local_block_count(), balanced_range_begin(odd_n, ranks, rank + 1) - first);
    std::uint64_t previous_code = 0;
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      const MeshBlock& block = mesh.local_block(b);
      const std::uint64_t code = morton_encode(static_cast<std::uint32_t>(block.coord.x),
                                               static_cast<std::uint32_t>(block.coord.y),
                                               static_cast<std::uint32_t>(block.coord.z));
      if (b > 0) {
        EXPECT_GT(code, previous_code);
      }
      previous_code = code;
      EXPECT_EQ(mesh.curve_index(block.id), first + b);
      for (int index = 0; index < Direction::kCount; ++index) {
        const GlobalBlockId nb = block.neighbour[index];
        if (nb == kNoBlock) continue;
        EXPECT_EQ(block.neighbour_rank[index],
                  balanced_range_owner(odd_n, ranks, mesh.curve_index(nb)));
      }
    }
  }
}

}  // namespace
}  // namespace tessera
