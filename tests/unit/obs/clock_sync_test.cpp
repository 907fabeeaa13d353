// Offset estimation from ping-pong samples: the least-delayed sample wins.
#include "obs/clock_sync.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace tessera::obs {
namespace {

TEST(EstimateOffset, UsesTheSampleWithTheSmallestRoundTrip) {
  // Remote clock = local + 1000. Sample 2 has symmetric 5 ns delays; the others were
  // delayed asymmetrically (queueing), which would bias the estimate.
  const std::vector<ClockSample> samples{
      {0, 1000 + 300, 400},       // 300 out, 100 back
      {1000, 1005 + 1000, 1010},  // 5 out, 5 back
      {5000, 6000 + 50, 5600},    // 50 out, 550 back
  };
  EXPECT_EQ(estimate_offset(samples), 1000);
}

TEST(EstimateOffset, HandlesARemoteClockBehindTheLocalOne) {
  const std::vector<ClockSample> samples{{10'000, 10'000 - 7'000 + 20, 10'040}};
  EXPECT_EQ(estimate_offset(samples), -7'000);
}

TEST(EstimateOffset, RejectsAnEmptySampleSet) {
  EXPECT_THROW(estimate_offset({}), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::obs
