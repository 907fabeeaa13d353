// WavefrontOrder: every face dependency of a sweep has a smaller key, bands come one after
// another, and the wave runs along the rank's longest axis of blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "tessera/mesh/direction.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/mesh/wavefront_order.hpp"

namespace tessera {
namespace {

TEST(WavefrontOrder, FaceNeighboursOfThePreviousIterationComeFirst) {
  for (int ranks : {1, 3}) {
    for (int rank = 0; rank < ranks; ++rank) {
      const UniformMesh mesh({3, 4, 6}, {4, 4, 4}, 1, rank, ranks);
      for (int depth : {1, 2, 3}) {
        const WavefrontOrder order(mesh, depth);
        for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
          for (const Direction d : halo_directions(HaloShape::faces)) {
            const LocalBlockIndex n = mesh.local_block(b).neighbour_local[d.index()];
            if (n == kNotLocal) continue;
            for (int k = 1; k < 3 * depth + 2; ++k) {
              EXPECT_LT(order.key(n, k - 1), order.key(b, k))
                  << "rank " << rank << "/" << ranks << ", depth " << depth << ", block " << b
                  << ", neighbour " << n << ", iteration " << k;
            }
          }
        }
      }
    }
  }
}

TEST(WavefrontOrder, BandsFollowOneAnother) {
  const UniformMesh mesh({2, 2, 8}, {4, 4, 4}, 1, 0, 1);
  const WavefrontOrder order(mesh, 3);
  for (int band = 0; band < 3; ++band) {
    std::int64_t last_of_band = std::numeric_limits<std::int64_t>::min();
    std::int64_t first_of_next = std::numeric_limits<std::int64_t>::max();
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      for (int k = band * 3; k < band * 3 + 3; ++k)
        last_of_band = std::max(last_of_band, order.key(b, k));
      first_of_next = std::min(first_of_next, order.key(b, band * 3 + 3));
    }
    EXPECT_LT(last_of_band, first_of_next) << "band " << band;
  }
}

TEST(WavefrontOrder, WavesRunAlongTheLongestAxis) {
  EXPECT_EQ(WavefrontOrder(UniformMesh({2, 2, 8}, {4, 4, 4}, 1, 0, 1), 2).axis(), 2);
  EXPECT_EQ(WavefrontOrder(UniformMesh({8, 2, 2}, {4, 4, 4}, 1, 0, 1), 2).axis(), 0);
  const WavefrontOrder y(UniformMesh({2, 9, 2}, {4, 4, 4}, 1, 0, 1), 2);
  EXPECT_EQ(y.axis(), 1);
  EXPECT_EQ(y.layers(), 9);
  EXPECT_THROW(WavefrontOrder(UniformMesh({2, 2, 2}, {4, 4, 4}, 1, 0, 1), 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace tessera
