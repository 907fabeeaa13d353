#pragma once
// Test oracle for the amr layer: the whole forest gathered on every rank, a brute-force
// geometric answer to "which blocks touch this face", and a way to grow level jumps.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "tessera/amr/forest.hpp"
#include "tessera/amr/marking.hpp"

namespace tessera::amr_test {

struct GlobalBlock {
  BlockPlace place;
  int owner = 0;
};

/// Every block of the forest in SFC order, on every rank (collective).
inline std::vector<GlobalBlock> gather_all(const Forest& forest) {
  std::vector<std::int64_t> mine;
  for (std::int32_t i = 0; i < forest.local_count(); ++i) {
    const BlockPlace& p = forest.local(i);
    mine.insert(mine.end(), {p.level, p.origin[0], p.origin[1], p.origin[2], forest.rank()});
  }
  const int ranks = forest.size();
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)),
      displs(static_cast<std::size_t>(ranks), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, forest.communicator());
  for (int r = 1; r < ranks; ++r)
    displs[static_cast<std::size_t>(r)] =
        displs[static_cast<std::size_t>(r) - 1] + counts[static_cast<std::size_t>(r) - 1];
  std::vector<std::int64_t> all(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(),
                 MPI_INT64_T, forest.communicator());
  std::vector<GlobalBlock> blocks;
  for (std::size_t i = 0; i < all.size(); i += 5)
    blocks.push_back({{static_cast<int>(all[i]), {all[i + 1], all[i + 2], all[i + 3]}},
                      static_cast<int>(all[i + 4])});
  return blocks;
}

/// Blocks sharing (a positive area of) face `face` of `b`, found by brute force.
inline std::vector<BlockPlace> touching(const std::vector<GlobalBlock>& all, const BlockPlace& b,
                                        int face) {
  const int axis = face / 2;
  const std::int64_t plane = b.origin[axis] + (face % 2 == 1 ? b.length() : 0);
  std::vector<BlockPlace> out;
  for (const GlobalBlock& g : all) {
    const BlockPlace& p = g.place;
    const std::int64_t their_plane = p.origin[axis] + (face % 2 == 1 ? 0 : p.length());
    if (their_plane != plane) continue;
    bool overlap = true;
    for (int a = 0; a < 3; ++a) {
      if (a == axis) continue;
      overlap = overlap && p.origin[a] < b.origin[a] + b.length() &&
                b.origin[a] < p.origin[a] + p.length();
    }
    if (overlap) out.push_back(p);
  }
  return out;
}

/// The first positions (in `all`) of complete families of 2^dim sibling blocks whose
/// members are not all on one rank; empty when every family is together.
inline std::vector<std::size_t> split_families(const std::vector<GlobalBlock>& all, int dim) {
  const std::size_t children = std::size_t{1} << dim;
  std::vector<std::size_t> split;
  for (std::size_t i = 0; i + children <= all.size(); ++i) {
    const BlockPlace& first = all[i].place;
    if (first.level == 0) continue;
    const std::int64_t parent_length = 2 * first.length();
    bool family = true;
    for (std::size_t c = 0; c < children && family; ++c) {
      const BlockPlace& p = all[i + c].place;
      family = p.level == first.level;
      for (int a = 0; a < dim && family; ++a)
        family = p.origin[a] / parent_length == first.origin[a] / parent_length;
    }
    if (!family) continue;
    for (std::size_t c = 1; c < children; ++c)
      if (all[i + c].owner != all[i].owner) {
        split.push_back(i);
        break;
      }
  }
  return split;
}

/// Refines, over a few miniAMR iterations, the blocks containing `point` (its first
/// point.size() coordinates, unit cube), so that the forest gets level jumps in every
/// direction while staying 2:1 balanced; repartitions after each (collective).
inline void refine_around(Forest& forest, const std::vector<double>& point, int iterations,
                          int finest) {
  for (int it = 0; it < iterations; ++it) {
    std::vector<std::uint8_t> hit(static_cast<std::size_t>(forest.local_count()));
    for (std::int32_t i = 0; i < forest.local_count(); ++i) {
      const auto box = forest.unit_box(forest.local(i));
      bool inside = true;
      for (std::size_t a = 0; a < point.size(); ++a)
        inside = inside && box[a][0] <= point[a] && point[a] <= box[a][1];
      hit[static_cast<std::size_t>(i)] = inside;
    }
    forest.adapt(refinement_marks(forest, hit, finest));
    forest.partition();
  }
}

/// Checks every face of every local block against the brute-force oracle (touching):
/// neighbour count, level, place and owner, finer neighbours ordered by their offset in
/// the face, periodic wrap-around, and no z neighbours in a flat 2-D forest. Returns the
/// number of level jumps seen over all ranks (collective).
inline int expect_neighbors_match_oracle(const Forest& forest) {
  const auto all = gather_all(forest);
  const int faces = 2 * forest.dim();
  int jumps = 0;
  for (std::int32_t i = 0; i < forest.local_count(); ++i) {
    const BlockPlace& me = forest.local(i);
    for (int f = 0; f < kBlockFaces; ++f) {
      const FaceNeighbors& nb = forest.neighbors(i, f);
      if (f >= faces) {
        EXPECT_EQ(nb.kind, FaceKind::boundary) << "2-D blocks have no z neighbours";
        continue;
      }
      std::vector<BlockPlace> expected = touching(all, me, f);
      if (forest.periodic()[static_cast<std::size_t>(f / 2)] && expected.empty()) {
        // Across the wrapped end face: the blocks touching the shifted copy of me.
        BlockPlace shifted = me;
        const std::int64_t extent = forest.root_blocks()[f / 2] * kRootLength;
        shifted.origin[f / 2] += f % 2 == 1 ? -extent : extent;
        for (BlockPlace p : touching(all, shifted, f)) expected.push_back(p);
      }
      if (static_cast<std::size_t>(nb.count()) != expected.size()) {
        ADD_FAILURE() << "block " << i << " face " << f << ": " << nb.count()
                      << " neighbours, the oracle finds " << expected.size();
        continue;
      }
      if (nb.kind == FaceKind::boundary) continue;
      EXPECT_EQ(nb.count(), nb.kind == FaceKind::finer ? forest.children() / 2 : 1);
      const int level = forest.place(nb.blocks[0]).level;
      EXPECT_EQ(level, me.level + (nb.kind == FaceKind::finer) - (nb.kind == FaceKind::coarser));
      if (nb.kind != FaceKind::same) ++jumps;
      // The face's tangential axes; in 2-D t1 is the flat z axis (offset h / 2 = 0).
      const int axis = f / 2, t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
      for (int h = 0; h < nb.count(); ++h) {
        const BlockRef ref = nb.blocks[static_cast<std::size_t>(h)];
        const BlockPlace& p = forest.place(ref);
        EXPECT_NE(std::find(expected.begin(), expected.end(), p), expected.end());
        if (forest.dim() == 2) {
          EXPECT_EQ(p.origin[2], 0);
        }
        if (nb.kind == FaceKind::finer) {  // ordered by offset inside the face
          EXPECT_EQ(p.origin[t0], me.origin[t0] + (h % 2) * p.length());
          EXPECT_EQ(p.origin[t1], me.origin[t1] + (h / 2) * p.length());
        }
        if (ref.ghost) {
          EXPECT_NE(forest.ghost_owner(ref.index), forest.rank());
          const auto& g = all[static_cast<std::size_t>(forest.global_index(ref))];
          EXPECT_EQ(g.place, p);
          EXPECT_EQ(g.owner, forest.ghost_owner(ref.index));
        }
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &jumps, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return jumps;
}

/// Splits every block of `forest` and checks where each child came from and where it lies,
/// then merges every family but the first (whose last block votes against) and checks
/// that the merged blocks are the original ones and the kept ones stay (collective).
inline void expect_split_all_then_merge_back(Forest& forest) {
  const int children = forest.children();
  std::vector<BlockPlace> before;
  for (std::int32_t i = 0; i < forest.local_count(); ++i) before.push_back(forest.local(i));
  const AdaptResult refined =
      forest.adapt(std::vector<std::int8_t>(static_cast<std::size_t>(forest.local_count()), 1));
  EXPECT_EQ(refined.refined, static_cast<std::int64_t>(before.size()));
  ASSERT_EQ(refined.sources.size(), static_cast<std::size_t>(children) * before.size());
  for (std::size_t i = 0; i < refined.sources.size(); ++i) {
    const AdaptSource& s = refined.sources[i];
    EXPECT_EQ(s.kind, AdaptSource::Kind::refined);
    EXPECT_EQ(s.old_index, static_cast<std::int32_t>(i / children));
    EXPECT_EQ(s.child, static_cast<int>(i % children));
    const BlockPlace& parent = before[static_cast<std::size_t>(s.old_index)];
    const BlockPlace& child = forest.local(static_cast<std::int32_t>(i));
    EXPECT_EQ(child.level, parent.level + 1);
    // Child c's offset along axis a is bit a of c (a flat 2-D forest has no bit 2).
    for (int a = 0; a < 3; ++a)
      EXPECT_EQ(child.origin[a], parent.origin[a] + (s.child >> a & 1) * child.length());
    if (forest.dim() == 2) {
      EXPECT_EQ(child.origin[2], 0);
    }
    EXPECT_EQ(forest.family_first(static_cast<std::int32_t>(i)),
              static_cast<std::int32_t>(i / children * children));
  }
  std::vector<std::int8_t> marks(static_cast<std::size_t>(forest.local_count()), -1);
  if (!marks.empty()) marks[static_cast<std::size_t>(children - 1)] = 0;
  const AdaptResult merged = forest.adapt(marks);
  const auto families = static_cast<std::int64_t>(before.size());
  EXPECT_EQ(merged.merged, families > 0 ? families - 1 : 0);
  ASSERT_EQ(static_cast<std::int64_t>(merged.sources.size()),
            families > 0 ? children + families - 1 : 0);
  for (std::size_t i = 0; i < merged.sources.size(); ++i) {
    const AdaptSource& s = merged.sources[i];
    if (i < static_cast<std::size_t>(children)) {
      EXPECT_EQ(s.kind, AdaptSource::Kind::kept);
      EXPECT_EQ(s.old_index, static_cast<std::int32_t>(i));
    } else {
      const std::size_t family = i - static_cast<std::size_t>(children) + 1;
      EXPECT_EQ(s.kind, AdaptSource::Kind::merged);
      EXPECT_EQ(s.old_index, static_cast<std::int32_t>(children * family));
      EXPECT_EQ(forest.local(static_cast<std::int32_t>(i)), before[family]);
    }
  }
  EXPECT_TRUE(forest.is_face_balanced());
}

}  // namespace tessera::amr_test
