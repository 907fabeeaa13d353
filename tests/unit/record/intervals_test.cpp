// Interval arithmetic behind the overlap fraction and the MPI trace lanes, checked
// against brute force on a nanosecond grid.
#include "record/intervals.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace tessera::obs {
namespace {

TEST(MergeIntervals, JoinsOverlappingAndTouchingSpansAndDropsEmptyOnes) {
  const auto merged = merge_intervals({{5, 7}, {0, 2}, {2, 3}, {6, 9}, {4, 4}, {12, 10}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].begin, 0);
  EXPECT_EQ(merged[0].end, 3);
  EXPECT_EQ(merged[1].begin, 5);
  EXPECT_EQ(merged[1].end, 9);
  EXPECT_EQ(total_length(merged), 7);
}

TEST(IntersectionLength, CountsOnlyCommonTime) {
  const std::vector<Interval> a{{0, 10}, {20, 30}};
  const std::vector<Interval> b{{5, 25}, {29, 40}};
  EXPECT_EQ(intersection_length(a, b), 5 + 5 + 1);
  EXPECT_EQ(intersection_length(b, a), 11);
  EXPECT_EQ(intersection_length(a, {}), 0);
}

TEST(ClipIntervals, KeepsOnlyThePartsInsideTheWindow) {
  const std::vector<Interval> spans{{0, 10}, {20, 30}, {40, 50}};
  const auto clipped = clip_intervals(spans, 5, 25);
  ASSERT_EQ(clipped.size(), 2u);
  EXPECT_EQ(clipped[0].begin, 5);
  EXPECT_EQ(clipped[0].end, 10);
  EXPECT_EQ(clipped[1].begin, 20);
  EXPECT_EQ(clipped[1].end, 25);
}

TEST(MeasureOverlap, IsOverlappedTimeOverInFlightTime) {
  // Requests in flight over [0, 100) (two overlapping requests); tasks busy 25 ns of it
  // plus 50 ns outside it, on two workers whose tasks overlap each other.
  const OverlapTotals t = measure_overlap({{0, 60}, {40, 100}}, {{10, 20}, {15, 35}, {100, 150}});
  EXPECT_EQ(t.in_flight, 100);
  EXPECT_EQ(t.overlapped, 25);
  EXPECT_DOUBLE_EQ(t.fraction(), 0.25);
}

TEST(MeasureOverlap, IsZeroWhenNothingWasInFlight) {
  const OverlapTotals t = measure_overlap({}, {{0, 10}});
  EXPECT_EQ(t.in_flight, 0);
  EXPECT_EQ(t.fraction(), 0.0);
}

// Brute force: mark every nanosecond covered by at least one span.
std::vector<bool> coverage(const std::vector<Interval>& spans, int horizon) {
  std::vector<bool> covered(horizon, false);
  for (const Interval& s : spans) {
    for (std::int64_t t = s.begin; t < s.end; ++t) covered[t] = true;
  }
  return covered;
}

std::vector<Interval> random_spans(std::mt19937& rng, int count, int horizon) {
  std::uniform_int_distribution<int> start(0, horizon - 1);
  std::uniform_int_distribution<int> length(0, horizon / 8);
  std::vector<Interval> spans;
  for (int i = 0; i < count; ++i) {
    const int b = start(rng);
    spans.push_back({b, std::min(horizon, b + length(rng))});
  }
  return spans;
}

TEST(MeasureOverlap, MatchesBruteForceOnRandomSpans) {
  std::mt19937 rng(7);
  constexpr int kHorizon = 400;
  for (int trial = 0; trial < 200; ++trial) {
    const auto requests = random_spans(rng, 1 + trial % 9, kHorizon);
    const auto tasks = random_spans(rng, trial % 13, kHorizon);
    const auto in_flight = coverage(requests, kHorizon);
    const auto busy = coverage(tasks, kHorizon);
    std::int64_t expected_in_flight = 0;
    std::int64_t expected_overlap = 0;
    for (int t = 0; t < kHorizon; ++t) {
      expected_in_flight += in_flight[t];
      expected_overlap += in_flight[t] && busy[t];
    }
    const OverlapTotals got = measure_overlap(requests, tasks);
    ASSERT_EQ(got.in_flight, expected_in_flight) << "trial " << trial;
    ASSERT_EQ(got.overlapped, expected_overlap) << "trial " << trial;
  }
}

TEST(FoldInto, JoinsOnlySpansThatOverlapOrTouch) {
  Interval last{10, 20};
  EXPECT_TRUE(fold_into(last, {15, 25}));
  EXPECT_EQ(last.begin, 10);
  EXPECT_EQ(last.end, 25);
  EXPECT_TRUE(fold_into(last, {5, 10}));  // touching, and earlier
  EXPECT_EQ(last.begin, 5);
  EXPECT_TRUE(fold_into(last, {7, 8}));  // inside
  EXPECT_EQ(last.begin, 5);
  EXPECT_EQ(last.end, 25);
  EXPECT_FALSE(fold_into(last, {26, 30}));
  EXPECT_FALSE(fold_into(last, {0, 4}));
  EXPECT_EQ(last.begin, 5);
  EXPECT_EQ(last.end, 25);
}

TEST(FoldInto, KeepsTheUnionOfSpansArrivingInAnyOrder) {
  std::mt19937 rng(11);
  constexpr int kHorizon = 400;
  for (int trial = 0; trial < 200; ++trial) {
    const auto spans = random_spans(rng, 1 + trial % 17, kHorizon);
    std::vector<Interval> folded;
    for (const Interval& s : spans) {
      if (folded.empty() || !fold_into(folded.back(), s)) folded.push_back(s);
    }
    ASSERT_LE(folded.size(), spans.size());
    ASSERT_EQ(coverage(merge_intervals(folded), kHorizon), coverage(spans, kHorizon))
        << "trial " << trial;
  }
}

TEST(AssignLanes, NeverOverlapsInALaneAndUsesAsManyLanesAsThePeakConcurrency) {
  std::mt19937 rng(11);
  constexpr int kHorizon = 300;
  for (int trial = 0; trial < 200; ++trial) {
    const auto spans = random_spans(rng, 1 + trial % 20, kHorizon);
    const std::vector<int> lane = assign_lanes(spans);
    ASSERT_EQ(lane.size(), spans.size());
    int lanes = 0;
    for (int l : lane) lanes = std::max(lanes, l + 1);
    for (std::size_t i = 0; i < spans.size(); ++i) {
      for (std::size_t j = i + 1; j < spans.size(); ++j) {
        if (lane[i] != lane[j]) continue;
        const bool overlap = spans[i].begin < spans[j].end && spans[j].begin < spans[i].end &&
                             spans[i].end > spans[i].begin && spans[j].end > spans[j].begin;
        ASSERT_FALSE(overlap) << "trial " << trial << ": spans " << i << " and " << j;
      }
    }
    int peak = 0;
    for (int t = 0; t < kHorizon; ++t) {
      int open = 0;
      for (const Interval& s : spans) open += s.begin <= t && t < s.end;
      peak = std::max(peak, open);
    }
    ASSERT_EQ(lanes, std::max(peak, 1)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace tessera::obs
