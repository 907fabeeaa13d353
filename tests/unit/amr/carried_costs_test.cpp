// Measured block costs follow their blocks through an adaptation: kept blocks keep theirs,
// children take their parent's, a merged parent its children's mean.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tessera/amr/carried_costs.hpp"

namespace tessera {
namespace {

AdaptSource source(AdaptSource::Kind kind, std::int32_t old_index, int child = 0) {
  AdaptSource s;
  s.kind = kind;
  s.old_index = old_index;
  s.child = child;
  return s;
}

TEST(CarriedCosts, ChildrenTakeTheParentsCostAndAMergedParentTheMean) {
  using K = AdaptSource::Kind;
  // 2-D (4 children): old block 0 kept, old block 1 split, old blocks 2..5 merged, 6 kept.
  const std::vector<double> costs{1.5, 4.0, 1.0, 2.0, 3.0, 6.0, 0.25};
  std::vector<AdaptSource> sources{source(K::kept, 0)};
  for (int c = 0; c < 4; ++c) sources.push_back(source(K::refined, 1, c));
  sources.push_back(source(K::merged, 2));
  sources.push_back(source(K::kept, 6));
  EXPECT_EQ(costs_after_adapt(costs, sources, 4),
            (std::vector<double>{1.5, 4.0, 4.0, 4.0, 4.0, 3.0, 0.25}));
}

TEST(CarriedCosts, ASourceOutsideTheCostsIsRefused) {
  const std::vector<double> costs{1, 2, 3};
  EXPECT_THROW(costs_after_adapt(costs, std::vector{source(AdaptSource::Kind::kept, 3)}, 8),
               std::invalid_argument);
  // A family of 8 from block 0 needs 8 costs.
  EXPECT_THROW(costs_after_adapt(costs, std::vector{source(AdaptSource::Kind::merged, 0)}, 8),
               std::invalid_argument);
}

TEST(CarriedCosts, ARankHoldsItsSliceOfTheCurve) {
  const std::vector<double> all{1, 2, 3, 4, 5};
  const std::vector<std::int64_t> offsets{0, 2, 2, 5};
  EXPECT_EQ(costs_of_rank(all, offsets, 0), (std::vector<double>{1, 2}));
  EXPECT_TRUE(costs_of_rank(all, offsets, 1).empty());
  EXPECT_EQ(costs_of_rank(all, offsets, 2), (std::vector<double>{3, 4, 5}));
  EXPECT_THROW(costs_of_rank(all, offsets, 3), std::invalid_argument);
  EXPECT_THROW(costs_of_rank(all, std::vector<std::int64_t>{0, 2, 4}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tessera
