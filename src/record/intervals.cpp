#include "record/intervals.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace tessera::obs {

std::vector<Interval> merge_intervals(std::vector<Interval> spans) {
  std::erase_if(spans, [](const Interval& s) { return s.end <= s.begin; });
  std::sort(spans.begin(), spans.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> merged;
  for (const Interval& s : spans) {
    if (!merged.empty() && s.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, s.end);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

std::int64_t total_length(std::span<const Interval> disjoint) {
  std::int64_t total = 0;
  for (const Interval& s : disjoint) total += s.end - s.begin;
  return total;
}

std::int64_t intersection_length(std::span<const Interval> a, std::span<const Interval> b) {
  std::int64_t total = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t lo = std::max(a[i].begin, b[j].begin);
    const std::int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    // Advance whichever ends first; the other may still meet the next one.
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

std::vector<Interval> clip_intervals(std::span<const Interval> spans, std::int64_t lo,
                                     std::int64_t hi) {
  std::vector<Interval> clipped;
  for (const Interval& s : spans) {
    const Interval c{std::max(s.begin, lo), std::min(s.end, hi)};
    if (c.end > c.begin) clipped.push_back(c);
  }
  return clipped;
}

double OverlapTotals::fraction() const {
  return in_flight > 0 ? static_cast<double>(overlapped) / static_cast<double>(in_flight) : 0.0;
}

OverlapTotals measure_overlap(std::vector<Interval> requests, std::vector<Interval> tasks) {
  const std::vector<Interval> in_flight = merge_intervals(std::move(requests));
  const std::vector<Interval> busy = merge_intervals(std::move(tasks));
  return OverlapTotals{total_length(in_flight), intersection_length(in_flight, busy)};
}

std::vector<int> assign_lanes(std::span<const Interval> spans) {
  std::vector<std::size_t> order(spans.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return spans[a].begin < spans[b].begin; });
  // Lanes by the end of their last span, earliest first; reuse the earliest-free lane.
  using LaneEnd = std::pair<std::int64_t, int>;
  std::priority_queue<LaneEnd, std::vector<LaneEnd>, std::greater<>> busy_until;
  std::vector<int> lane(spans.size(), 0);
  int lanes = 0;
  for (const std::size_t i : order) {
    const Interval& s = spans[i];
    if (s.end <= s.begin) continue;  // an empty span overlaps nothing: lane 0 holds it
    int chosen;
    if (!busy_until.empty() && busy_until.top().first <= s.begin) {
      chosen = busy_until.top().second;
      busy_until.pop();
    } else {
      chosen = lanes++;
    }
    lane[i] = chosen;
    busy_until.push({s.end, chosen});
  }
  return lane;
}

}  // namespace tessera::obs
