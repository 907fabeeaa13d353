#pragma once
// Interval arithmetic behind the overlap fraction: the time during which at least one
// request was in flight and at least one task was executing, over the time during which
// at least one request was in flight.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace tessera::obs {

/// Half-open time span [begin, end) in any integer time unit (nanoseconds, ticks).
struct Interval {
  std::int64_t begin;
  std::int64_t end;
};

/// The union of `spans` as disjoint, ascending, non-empty intervals (empty and
/// reversed spans contribute nothing; touching spans merge).
std::vector<Interval> merge_intervals(std::vector<Interval> spans);

/// Folds `next` into `last` when the two overlap or touch, so that `last` becomes their
/// union, and says whether it did. Applied as spans arrive (nearly in order), it keeps a
/// list short without changing the union merge_intervals computes from it.
/// Inline: RunStats calls it for every completed request.
inline bool fold_into(Interval& last, const Interval& next) {
  if (next.begin > last.end || next.end < last.begin) return false;
  last = {std::min(last.begin, next.begin), std::max(last.end, next.end)};
  return true;
}

/// Sum of the lengths of disjoint intervals.
std::int64_t total_length(std::span<const Interval> disjoint);

/// Length of the intersection of two sets given as disjoint ascending intervals.
std::int64_t intersection_length(std::span<const Interval> a, std::span<const Interval> b);

/// The parts of disjoint ascending `spans` inside [lo, hi).
std::vector<Interval> clip_intervals(std::span<const Interval> spans, std::int64_t lo,
                                     std::int64_t hi);

/// In-flight time and the part of it overlapped by task execution, of one rank or
/// summed over ranks, in the unit of the intervals measured.
struct OverlapTotals {
  std::int64_t in_flight = 0;
  std::int64_t overlapped = 0;
  /// overlapped / in flight; 0 when nothing was in flight.
  double fraction() const;
};

/// Overlap of one rank: `requests` and `tasks` are arbitrary spans (overlapping freely,
/// e.g. several requests in flight, several workers busy).
OverlapTotals measure_overlap(std::vector<Interval> requests, std::vector<Interval> tasks);

/// Greedy lane assignment: lane[i] for spans[i] such that spans in one lane never
/// overlap (touching is allowed) and the number of lanes equals the largest number of
/// spans overlapping at one instant (at least 1). Empty spans go to lane 0. Used to draw
/// overlapping MPI requests as properly nested trace rows.
std::vector<int> assign_lanes(std::span<const Interval> spans);

}  // namespace tessera::obs
