// Uniform mesh geometry, Morton distribution over ranks, neighbours and skeleton blocks.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tessera/mesh/morton.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera {
namespace {

TEST(UniformMesh, GeometryOfA3DMesh) {
  const UniformMesh mesh({4, 3, 2}, {8, 6, 5}, 1, 0, 1);
  EXPECT_EQ(mesh.dimensions(), 3);
  EXPECT_EQ(mesh.cells(), (Int3{32, 18, 10}));
  EXPECT_EQ(mesh.ghost(), (Int3{1, 1, 1}));
  EXPECT_EQ(mesh.global_block_count(), 24);
  EXPECT_EQ(mesh.local_block_count(), 24);
  for (GlobalBlockId id = 0; id < 24; ++id) {
    EXPECT_EQ(mesh.block_id(mesh.block_coord(id)), id);
  }
  EXPECT_EQ(mesh.block_coord(5), (Int3{1, 1, 0}));
  EXPECT_EQ(mesh.cell_origin(mesh.local_block(*mesh.local_index(5))), (Int3{8, 6, 0}));
}

TEST(UniformMesh, FlatZAxisMakesA2DMeshWithoutZGhosts) {
  const UniformMesh mesh({3, 2, 1}, {4, 4, 1}, 2, 0, 1);
  EXPECT_EQ(mesh.dimensions(), 2);
  EXPECT_EQ(mesh.ghost(), (Int3{2, 2, 0}));
  const MeshBlock& block = mesh.local_block(0);
  for (int index = 0; index < Direction::kCount; ++index) {
    if (Direction::from_index(index).offset.z != 0) {
      EXPECT_EQ(block.neighbour[index], kNoBlock);
    }
  }
  // A thin but not flat z axis keeps its ghosts.
  EXPECT_EQ(UniformMesh({2, 2, 2}, {4, 4, 1}, 1, 0, 1).ghost(), (Int3{1, 1, 1}));
}

TEST(UniformMesh, RejectsBadArgumentsNamingThem) {
  EXPECT_THROW(UniformMesh({0, 1, 1}, {4, 4, 4}, 1, 0, 1), std::invalid_argument);
  EXPECT_THROW(UniformMesh({1, 1, 1}, {4, 0, 4}, 1, 0, 1), std::invalid_argument);
  EXPECT_THROW(UniformMesh({1, 1, 1}, {4, 4, 4}, 0, 0, 1), std::invalid_argument);
  EXPECT_THROW(UniformMesh({2, 2, 2}, {2, 2, 2}, 3, 0, 1), std::invalid_argument);
  EXPECT_THROW(UniformMesh({2, 2, 2}, {2, 2, 2}, 1, 2, 2), std::invalid_argument);
  try {
    UniformMesh({2, 2, 2}, {2, 2, 2}, 3, 0, 1);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ghost"), std::string::npos) << e.what();
  }
}

TEST(UniformMesh, EveryBlockHasExactlyOneOwnerAndRanksHoldContiguousBalancedCurveRanges) {
  const Int3 blocks{5, 3, 4};
  for (int ranks : {1, 2, 3, 4, 7, 60, 64}) {
    std::vector<int> owner_seen(60, -1);
    std::int64_t next_curve_index = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      const UniformMesh mesh(blocks, {2, 2, 2}, 1, rank, ranks);
      const int expected = static_cast<int>(balanced_range_begin(60, ranks, rank + 1) -
                                            balanced_range_begin(60, ranks, rank));
      EXPECT_EQ(mesh.local_block_count(), expected);
      for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
        const MeshBlock& block = mesh.local_block(b);
        EXPECT_EQ(block.curve_index, next_curve_index++);
        EXPECT_EQ(owner_seen[block.id], -1);
        owner_seen[block.id] = rank;
        EXPECT_EQ(mesh.owner(block.id), rank);
        EXPECT_EQ(mesh.local_index(block.id), b);
      }
    }
    for (int o : owner_seen) EXPECT_NE(o, -1);
  }
}

TEST(UniformMesh, CurveFollowsMortonOrderOfBlockCoordinates) {
  const UniformMesh mesh({3, 5, 2}, {2, 2, 2}, 1, 0, 1);
  for (LocalBlockIndex b = 1; b < mesh.local_block_count(); ++b) {
    const Int3 p = mesh.local_block(b - 1).coord;
    const Int3 c = mesh.local_block(b).coord;
    EXPECT_LT(morton_encode(p.x, p.y, p.z), morton_encode(c.x, c.y, c.z));
  }
  // On a 2x2x2 grid the curve visits x first, then y, then z.
  const UniformMesh cube({2, 2, 2}, {2, 2, 2}, 1, 0, 1);
  EXPECT_EQ(cube.local_block(1).coord, (Int3{1, 0, 0}));
  EXPECT_EQ(cube.local_block(2).coord, (Int3{0, 1, 0}));
  EXPECT_EQ(cube.local_block(4).coord, (Int3{0, 0, 1}));
}

TEST(UniformMesh, NeighboursAreTheAdjacentBlocksWithOwnerAndLocality) {
  const Int3 blocks{4, 3, 3};
  for (int ranks : {1, 2, 5}) {
    for (int rank = 0; rank < ranks; ++rank) {
      const UniformMesh mesh(blocks, {3, 3, 3}, 1, rank, ranks);
      for (const MeshBlock& block : mesh.local_blocks()) {
        for (int index = 0; index < Direction::kCount; ++index) {
          const Int3 d = Direction::from_index(index).offset;
          const Int3 c{block.coord.x + d.x, block.coord.y + d.y, block.coord.z + d.z};
          const bool inside = c.x >= 0 && c.x < 4 && c.y >= 0 && c.y < 3 && c.z >= 0 && c.z < 3;
          if (!inside) {
            EXPECT_EQ(block.neighbour[index], kNoBlock);
            EXPECT_EQ(block.neighbour_rank[index], -1);
            EXPECT_EQ(block.neighbour_local[index], kNotLocal);
            continue;
          }
          const GlobalBlockId nb = mesh.block_id(c);
          EXPECT_EQ(block.neighbour[index], nb);
          EXPECT_EQ(block.neighbour_rank[index], mesh.owner(nb));
          if (mesh.owner(nb) == rank) {
            EXPECT_EQ(mesh.local_block(block.neighbour_local[index]).id, nb);
          } else {
            EXPECT_EQ(block.neighbour_local[index], kNotLocal);
          }
        }
      }
    }
  }
}

TEST(UniformMesh, SkeletonBlocksAreExactlyThoseWithARemoteNeighbour) {
  for (int ranks : {1, 2, 3, 8}) {
    int skeleton_faces = 0;
    int skeleton_full = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      const UniformMesh mesh({4, 4, 4}, {2, 2, 2}, 1, rank, ranks);
      for (const MeshBlock& block : mesh.local_blocks()) {
        bool remote_face = false;
        bool remote_any = false;
        for (int index = 0; index < Direction::kCount; ++index) {
          const GlobalBlockId nb = block.neighbour[index];
          if (nb == kNoBlock || mesh.owner(nb) == rank) continue;
          remote_any = true;
          if (Direction::from_index(index).order() == 1) remote_face = true;
        }
        EXPECT_EQ(block.is_skeleton(HaloShape::faces), remote_face);
        EXPECT_EQ(block.is_skeleton(HaloShape::full), remote_any);
        skeleton_faces += remote_face;
        skeleton_full += remote_any;
      }
    }
    if (ranks == 1) {
      EXPECT_EQ(skeleton_full, 0);
    }
    // Two ranks split a 4x4x4 grid at z = 2: two layers of 16 blocks touch the cut.
    if (ranks == 2) {
      EXPECT_EQ(skeleton_faces, 32);
      EXPECT_EQ(skeleton_full, 32);
    }
    EXPECT_LE(skeleton_faces, skeleton_full);
  }
}

TEST(UniformMesh, PeriodicAxesWrapNeighboursAndFlatAxesNever) {
  const UniformMesh mesh({3, 1, 2}, {4, 4, 4}, 1, 0, 1, {true, true, false});
  EXPECT_TRUE(mesh.is_periodic(0));
  EXPECT_TRUE(mesh.is_periodic(1));
  EXPECT_FALSE(mesh.is_periodic(2));
  // Block (0, 0, 0): -x wraps to x = 2; y has one block, which is its own neighbour.
  EXPECT_EQ(mesh.neighbour({0, 0, 0}, {{-1, 0, 0}}), mesh.block_id({2, 0, 0}));
  EXPECT_EQ(mesh.neighbour({2, 0, 1}, {{1, 0, 0}}), mesh.block_id({0, 0, 1}));
  EXPECT_EQ(mesh.neighbour({1, 0, 0}, {{0, 1, 0}}), mesh.block_id({1, 0, 0}));
  EXPECT_EQ(mesh.neighbour({1, 0, 0}, {{1, -1, 1}}), mesh.block_id({2, 0, 1}));
  EXPECT_EQ(mesh.neighbour({1, 0, 0}, {{0, 0, -1}}), kNoBlock);
  // A flat axis stays without neighbours even when asked to wrap.
  const UniformMesh flat({2, 2, 1}, {4, 4, 1}, 1, 0, 1, Periodicity::all());
  EXPECT_FALSE(flat.is_periodic(2));
  EXPECT_EQ(flat.neighbour({0, 0, 0}, {{0, 0, 1}}), kNoBlock);
  EXPECT_EQ(flat.neighbour({0, 0, 0}, {{-1, -1, 0}}), flat.block_id({1, 1, 0}));
}

TEST(UniformMesh, APeriodicMeshOnSeveralRanksHasEveryNeighbourAndMarksRemoteOnesSkeleton) {
  for (int rank = 0; rank < 2; ++rank) {
    const UniformMesh mesh({2, 2, 2}, {2, 2, 2}, 1, rank, 2, Periodicity::all());
    for (const MeshBlock& block : mesh.local_blocks()) {
      for (int index = 0; index < Direction::kCount; ++index) {
        ASSERT_NE(block.neighbour[index], kNoBlock);
        ASSERT_EQ(block.neighbour_rank[index], mesh.owner(block.neighbour[index]));
      }
      EXPECT_TRUE(block.skeleton_full);
    }
  }
}

}  // namespace
}  // namespace tessera
