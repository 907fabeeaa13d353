#include "tessera/mesh/weighted_split.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tessera/base/check_mpi.hpp"

namespace tessera {

namespace {

// A part's capacity at step time `t`: what its speed does in t, and never more than its
// ideal share plus the largest block (the nearest-cut split's bound, kept).
double capacity(double t, double speed, double share, double largest) {
  return std::min(t * speed, share + largest);
}

// The furthest boundary part r can reach from `from` within `cap` (prefix differences).
std::size_t reach(const std::vector<double>& prefix, std::size_t from, double cap) {
  std::size_t to = from;
  while (to + 1 < prefix.size() && prefix[to + 1] - prefix[from] <= cap) ++to;
  return to;
}

}  // namespace

std::vector<std::int64_t> weighted_split(std::span<const double> costs,
                                         std::span<const double> speeds) {
  if (speeds.empty()) throw std::invalid_argument("weighted_split: no part to split into");
  double speed_sum = 0;
  for (double s : speeds) {
    if (!(s > 0) || !std::isfinite(s))
      throw std::invalid_argument("weighted_split: speeds must be finite and > 0");
    speed_sum += s;
  }
  const std::size_t n = costs.size();
  std::vector<double> prefix(n + 1, 0.0);  // prefix[k]: cost of blocks 0 .. k - 1
  double largest = 0;
  for (std::size_t b = 0; b < n; ++b) {
    if (!(costs[b] >= 0) || !std::isfinite(costs[b]))
      throw std::invalid_argument("weighted_split: costs must be finite and >= 0");
    prefix[b + 1] = prefix[b] + costs[b];
    largest = std::max(largest, costs[b]);
  }
  const double total = prefix[n];
  const std::size_t parts = speeds.size();
  std::vector<double> share(parts), target(parts);  // ideal load; ideal end of part r
  double speed_before = 0;
  for (std::size_t r = 0; r < parts; ++r) {
    share[r] = total * (speeds[r] / speed_sum);
    speed_before += speeds[r];
    target[r] = total * (speed_before / speed_sum);
  }
  // The least step time t (the slowest part's load over its speed) that parts of at most
  // capacity(t) cover: bisection between the ideal and the nearest cuts' time. The forward
  // greedy (each part as far as it reaches) decides whether t is enough.
  const auto covers = [&](double t) {
    std::size_t at = 0;
    for (std::size_t r = 0; r < parts; ++r)
      at = reach(prefix, at, capacity(t, speeds[r], share[r], largest));
    return at == n;
  };
  // The nearest cuts: each cut the boundary nearest to its ideal one (ties to the earlier).
  const auto nearest_cut = [&](std::size_t r, std::size_t previous) {
    auto cut = static_cast<std::size_t>(
        std::lower_bound(prefix.begin() + static_cast<std::ptrdiff_t>(previous), prefix.end(),
                         target[r]) -
        prefix.begin());
    if (cut > n) cut = n;
    if (cut > previous && target[r] - prefix[cut - 1] <= prefix[cut] - target[r]) --cut;
    return cut;
  };
  std::vector<std::int64_t> nearest(parts, 0);
  double low = total / speed_sum, high = low;
  for (std::size_t r = 0, previous = 0; r < parts; ++r) {
    const std::size_t cut = r + 1 < parts ? nearest_cut(r, previous) : n;
    nearest[r] = static_cast<std::int64_t>(cut - previous);
    high = std::max(high, (prefix[cut] - prefix[previous]) / speeds[r]);
    previous = cut;
  }
  // They bound the least time; should rounding put them past a capacity, they stand.
  if (!covers(high)) return nearest;
  for (int i = 0; i < 64 && high > low * (1 + 1e-12); ++i) {
    const double mid = 0.5 * (low + high);
    (covers(mid) ? high : low) = mid;
  }
  // first[r]: the least boundary from which parts r .. end still cover the rest at `high`
  // (backward greedy); each cut is then the boundary nearest to its ideal one among those
  // that keep part r within capacity and the rest coverable.
  std::vector<std::size_t> first(parts + 1, n);
  for (std::size_t r = parts; r-- > 0;) {
    const double cap = capacity(high, speeds[r], share[r], largest);
    std::size_t from = first[r + 1];
    while (from > 0 && prefix[first[r + 1]] - prefix[from - 1] <= cap) --from;
    first[r] = from;
  }
  std::vector<std::int64_t> counts(parts, 0);
  std::size_t previous = 0;
  for (std::size_t r = 0; r + 1 < parts; ++r) {
    std::size_t cut = nearest_cut(r, previous);
    const std::size_t most = reach(prefix, previous, capacity(high, speeds[r], share[r], largest));
    cut = std::min(std::max(cut, std::max(first[r + 1], previous)), std::max(most, previous));
    counts[r] = static_cast<std::int64_t>(cut - previous);
    previous = cut;
  }
  counts[parts - 1] = static_cast<std::int64_t>(n - previous);
  return counts;
}

double split_time(std::span<const double> costs, std::span<const double> speeds,
                  std::span<const std::int64_t> counts) {
  if (counts.size() != speeds.size())
    throw std::invalid_argument("split_time: needs one count per speed");
  double slowest = 0;
  std::size_t b = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (!(speeds[r] > 0) || counts[r] < 0 || static_cast<std::size_t>(counts[r]) > costs.size() - b)
      throw std::invalid_argument("split_time: speeds must be > 0 and counts cover the costs");
    double load = 0;
    for (std::int64_t i = 0; i < counts[r]; ++i) load += costs[b++];
    slowest = std::max(slowest, load / speeds[r]);
  }
  if (b != costs.size()) throw std::invalid_argument("split_time: counts must cover the costs");
  return slowest;
}

CostSplit cost_balanced_split(MPI_Comm comm, std::span<const double> local_costs,
                              double local_speed) {
  int ranks = 0;
  TESSERA_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  struct RankCosts {
    double speed;
    double blocks;
  };
  const RankCosts mine{local_speed > 0 && std::isfinite(local_speed) ? local_speed : 0.0,
                       static_cast<double>(local_costs.size())};
  std::vector<RankCosts> all(static_cast<std::size_t>(ranks));
  TESSERA_MPI_CHECK(MPI_Allgather(&mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, comm));
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(static_cast<std::size_t>(ranks));
  std::size_t blocks = 0;
  for (int r = 0; r < ranks; ++r) {
    counts[r] = static_cast<int>(all[r].blocks);
    displs[r] = static_cast<int>(blocks);
    blocks += static_cast<std::size_t>(all[r].blocks);
  }
  CostSplit split;
  split.current.assign(counts.begin(), counts.end());
  split.costs.resize(blocks);
  TESSERA_MPI_CHECK(MPI_Allgatherv(local_costs.data(), static_cast<int>(local_costs.size()),
                                   MPI_DOUBLE, split.costs.data(), counts.data(), displs.data(),
                                   MPI_DOUBLE, comm));
  std::vector<double>& costs = split.costs;
  // Ranks that measured nothing get the mean of those that did.
  double speed_sum = 0, cost_sum = 0, measured_blocks = 0;
  int measured = 0;
  for (int r = 0; r < ranks; ++r) {
    if (all[r].speed <= 0) continue;
    ++measured;
    speed_sum += all[r].speed;
    for (int b = 0; b < counts[r]; ++b) cost_sum += costs[static_cast<std::size_t>(displs[r] + b)];
    measured_blocks += counts[r];
  }
  if (measured == 0 || !(cost_sum > 0)) {
    // Nothing measured anywhere: the partition stays as it is.
    split.counts = split.current;
    return split;
  }
  const double mean_cost = cost_sum / measured_blocks;
  std::vector<double> speeds(static_cast<std::size_t>(ranks), 1.0);
  for (int r = 0; r < ranks; ++r) {
    speeds[r] = all[r].speed > 0 ? all[r].speed : speed_sum / measured;
    if (all[r].speed > 0) continue;
    for (int b = 0; b < counts[r]; ++b) costs[static_cast<std::size_t>(displs[r] + b)] = mean_cost;
  }
  split.counts = weighted_split(costs, speeds);
  split.current_time = split_time(costs, speeds, split.current);
  split.balanced_time = split_time(costs, speeds, split.counts);
  return split;
}

std::vector<std::int64_t> cost_balanced_counts(MPI_Comm comm, std::span<const double> local_costs,
                                               double local_speed) {
  return cost_balanced_split(comm, local_costs, local_speed).counts;
}

CostSplit cost_balanced_split(MPI_Comm comm, const CostWindow& window, std::size_t local_blocks) {
  std::vector<double> costs(local_blocks, 0.0);
  for (std::size_t b = 0; b < local_blocks && b < window.seconds.size(); ++b)
    costs[b] = window.normalized_cost(b);
  return cost_balanced_split(comm, costs, window.speed());
}

std::vector<std::int64_t> cost_balanced_counts(MPI_Comm comm, const CostWindow& window,
                                               std::size_t local_blocks) {
  return cost_balanced_split(comm, window, local_blocks).counts;
}

}  // namespace tessera
