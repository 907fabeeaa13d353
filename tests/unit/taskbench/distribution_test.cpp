// Points are split over ranks in contiguous blocks, like Task Bench's MPI implementation.
#include <gtest/gtest.h>

#include "../../../apps/taskbench/distribution.hpp"

namespace tessera::taskbench {
namespace {

TEST(BlockDistribution, EveryPointHasExactlyTheOwnerWhoseBlockHoldsIt) {
  for (long width = 1; width <= 12; ++width) {
    for (int ranks = 1; ranks <= 6; ++ranks) {
      const BlockDistribution d{width, ranks};
      EXPECT_EQ(d.first(0), 0);
      EXPECT_EQ(d.end(ranks - 1), width);
      for (int r = 0; r < ranks; ++r) {
        EXPECT_LE(d.first(r), d.end(r));
        for (long p = d.first(r); p < d.end(r); ++p) {
          EXPECT_EQ(d.owner(p), r) << "width " << width << " ranks " << ranks << " point " << p;
        }
      }
    }
  }
}

TEST(BlockDistribution, BlocksDifferByAtMostOnePoint) {
  const BlockDistribution d{10, 4};
  for (int r = 0; r < 4; ++r) {
    EXPECT_GE(d.end(r) - d.first(r), 2);
    EXPECT_LE(d.end(r) - d.first(r), 3);
  }
}

}  // namespace
}  // namespace tessera::taskbench
