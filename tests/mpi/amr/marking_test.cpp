// miniAMR's refinement marks on the forest: the counts the reference prints, the
// invariants the marks keep, and independence of the rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "tessera/amr/forest.hpp"
#include "tessera/amr/marking.hpp"
#include "miniamr/objects.hpp"

namespace tessera {
namespace {

std::vector<std::uint8_t> object_hits(const Forest& forest,
                                      const std::vector<RefineObject>& objects) {
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(forest.local_count()));
  for (std::int32_t i = 0; i < forest.local_count(); ++i)
    hit[static_cast<std::size_t>(i)] = objects_intersect(objects, forest.unit_box(forest.local(i)));
  return hit;
}

// One refinement step of miniAMR: `iterations` rounds of marking and adapting.
void refinement_step(Forest& forest, const std::vector<RefineObject>& objects, int iterations,
                     int finest) {
  for (int it = 0; it < iterations; ++it) {
    forest.gather_families();
    forest.adapt(refinement_marks(forest, object_hits(forest, objects), finest));
    ASSERT_TRUE(forest.is_face_balanced());
  }
  forest.partition();
}

TEST(MarkingTest, ExpandingSphereGivesTheReferenceBlockCounts) {
  // Reference case "expanding sphere" (tests/data/miniamr/expanding_sphere.txt), first three
  // refinement steps: mpirun -np 1 miniAMR.x --init_x 2 --init_y 2 --init_z 2 --num_refine 3
  // --refine_freq 4 --num_objects 1 --object 2 0 0.5 0.5 0.5 0 0 0 0.1 0.1 0.1 0.02 0.02 0.02
  Forest forest(MPI_COMM_WORLD, {2, 2, 2});
  RefineObject sphere;
  sphere.type = 2;
  sphere.center = {0.5, 0.5, 0.5};
  sphere.size = {0.1, 0.1, 0.1};
  sphere.growth = {0.02, 0.02, 0.02};
  std::vector<RefineObject> objects{sphere};
  refinement_step(forest, objects, 3, 3);
  EXPECT_EQ(forest.global_level_counts(3), (std::vector<std::int64_t>{0, 56, 56, 64}));
  for (int ts = 1; ts <= 8; ++ts) {
    move_objects(objects, 1.0);
    if (ts % 4 == 0) refinement_step(forest, objects, 3, 3);
    if (ts == 4) {
      EXPECT_EQ(forest.global_level_counts(3), (std::vector<std::int64_t>{0, 32, 200, 448}));
    }
  }
  EXPECT_EQ(forest.global_level_counts(3), (std::vector<std::int64_t>{0, 32, 176, 640}));
}

TEST(MarkingTest, MarksMergeOnlyWholeFamiliesAndKeepFaceBalance) {
  Forest forest(MPI_COMM_WORLD, {2, 2, 1});
  RefineObject sphere;
  sphere.type = 2;
  sphere.center = {0.3, 0.4, 0.5};
  sphere.size = {0.25, 0.25, 0.25};
  sphere.move = {0.1, 0.05, 0.0};
  std::vector<RefineObject> objects{sphere};
  refinement_step(forest, objects, 3, 3);
  std::int64_t merges_seen = 0;
  for (int step = 0; step < 3; ++step) {
    move_objects(objects, 1.0);
    forest.gather_families();
    const std::vector<std::uint8_t> hit = object_hits(forest, objects);
    const std::vector<std::int8_t> marks = refinement_marks(forest, hit, 3);
    const std::vector<std::int8_t> ghost_marks = forest.exchange_ghost_values<std::int8_t>(marks);
    for (std::int32_t i = 0; i < forest.local_count(); ++i) {
      const std::int8_t m = marks[static_cast<std::size_t>(i)];
      const int level = forest.local(i).level;
      if (hit[static_cast<std::size_t>(i)] && level < 3) {
        EXPECT_EQ(m, 1);
      }
      if (level == 3) {
        EXPECT_LE(m, 0);
      }
      if (m != -1) continue;
      const std::int32_t first = forest.family_first(i);
      ASSERT_GE(first, 0);
      for (std::int32_t s = first; s < first + 8; ++s)
        EXPECT_EQ(marks[static_cast<std::size_t>(s)], -1);
      for (int f = 0; f < kBlockFaces; ++f) {
        const FaceNeighbors& nb = forest.neighbors(i, f);
        EXPECT_NE(nb.kind, FaceKind::finer);
        if (nb.kind == FaceKind::same) {
          const BlockRef r = nb.blocks[0];
          EXPECT_NE(r.ghost ? ghost_marks[static_cast<std::size_t>(r.index)]
                            : marks[static_cast<std::size_t>(r.index)],
                    1);
        }
      }
    }
    merges_seen += forest.adapt(marks).merged;
    EXPECT_TRUE(forest.is_face_balanced());
    forest.partition();
  }
  MPI_Allreduce(MPI_IN_PLACE, &merges_seen, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(merges_seen, 0);
}

TEST(MarkingTest, UniformRequestsRefineEveryBlockToTheFinestLevel) {
  Forest forest(MPI_COMM_WORLD, {2, 1, 1});
  for (int it = 0; it < 3; ++it) {
    const std::vector<std::uint8_t> all(static_cast<std::size_t>(forest.local_count()), 1);
    forest.adapt(refinement_marks(forest, all, 2));
    forest.partition();
  }
  EXPECT_EQ(forest.global_level_counts(2), (std::vector<std::int64_t>{0, 0, 128}));
}

TEST(MarkingTest, ARefiningBlockPullsItsCoarserNeighboursAlong) {
  // One block at level 2 asks to refine; its level-1 and level-0 face neighbours must
  // follow so that no face sees a jump of two levels.
  Forest forest(MPI_COMM_WORLD, {2, 1, 1});
  const std::array<double, 3> corner{0.49, 0.01, 0.01};
  const auto hit_at = [&](const std::array<double, 3>& p) {
    std::vector<std::uint8_t> hit(static_cast<std::size_t>(forest.local_count()));
    for (std::int32_t i = 0; i < forest.local_count(); ++i) {
      const auto b = forest.unit_box(forest.local(i));
      hit[static_cast<std::size_t>(i)] = b[0][0] < p[0] && p[0] < b[0][1] && b[1][0] < p[1] &&
                                         p[1] < b[1][1] && b[2][0] < p[2] && p[2] < b[2][1];
    }
    return hit;
  };
  for (int it = 0; it < 3; ++it) {
    forest.adapt(refinement_marks(forest, hit_at(corner), 3));
    EXPECT_TRUE(forest.is_face_balanced());
    forest.partition();
  }
  const auto counts = forest.global_level_counts(3);
  EXPECT_EQ(counts[3], 8);
  EXPECT_GT(counts[1], 0);  // the other root had to refine too
  EXPECT_EQ(counts[0], 0);
}

}  // namespace
}  // namespace tessera
