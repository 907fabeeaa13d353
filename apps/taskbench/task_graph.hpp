#pragma once
// Task Bench's task graphs: which points exist at each timestep and which points of the
// previous timestep each task depends on, for every dependence type, with the semantics of
// Task Bench's core (StanfordLegion/task-bench). Pure logic: no MPI, no runtime.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "random_uniform.hpp"

namespace tessera::taskbench {

/// Task Bench's dependence types (random_spread is not implemented by Task Bench itself).
enum class DependenceType {
  trivial,
  no_comm,
  stencil_1d,
  stencil_1d_periodic,
  dom,
  tree,
  fft,
  all_to_all,
  nearest,
  spread,
  random_nearest,
};

inline constexpr std::array<std::pair<DependenceType, std::string_view>, 11> kDependenceNames = {{
    {DependenceType::trivial, "trivial"},
    {DependenceType::no_comm, "no_comm"},
    {DependenceType::stencil_1d, "stencil_1d"},
    {DependenceType::stencil_1d_periodic, "stencil_1d_periodic"},
    {DependenceType::dom, "dom"},
    {DependenceType::tree, "tree"},
    {DependenceType::fft, "fft"},
    {DependenceType::all_to_all, "all_to_all"},
    {DependenceType::nearest, "nearest"},
    {DependenceType::spread, "spread"},
    {DependenceType::random_nearest, "random_nearest"},
}};

inline std::string_view to_string(DependenceType type) {
  for (const auto& [t, name] : kDependenceNames) {
    if (t == type) return name;
  }
  return "?";
}

/// Parses a Task Bench type name; std::nullopt for anything else.
inline std::optional<DependenceType> parse_dependence_type(std::string_view name) {
  for (const auto& [t, n] : kDependenceNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

/// Types whose dependence sets cycle with a user-given period (-period, default 3).
inline bool needs_period(DependenceType type) {
  return type == DependenceType::spread || type == DependenceType::random_nearest;
}

/// An inclusive range of points [first, last].
struct PointRange {
  long first;
  long last;
  friend bool operator==(const PointRange&, const PointRange&) = default;
};

/// One task graph: task (t, x) exists for 0 <= t < timesteps and offset_at(t) <= x <
/// offset_at(t) + width_at(t); it depends on the points of dependencies(dependence_set_at(t),
/// x) that exist at t - 1.
struct TaskGraph {
  long graph_index = 0;
  long timesteps = 4;
  long max_width = 4;
  DependenceType type = DependenceType::trivial;
  long radix = 3;
  long period = 0;  ///< resolved: Task Bench's default is 3 for needs_period types, else 0
  double fraction = 0.25;

  long offset_at(long t) const {
    if (t < 0) return 0;
    if (type == DependenceType::dom) return std::max(0L, t + max_width - timesteps);
    return 0;
  }

  long width_at(long t) const {
    if (t < 0) return 0;
    switch (type) {
      case DependenceType::dom:
        return std::min(max_width, std::min(t + 1, timesteps - t));
      case DependenceType::tree:
        return std::min(max_width, 1L << std::min(t, 62L));
      default:
        return max_width;
    }
  }

  bool exists(long t, long point) const {
    const long offset = offset_at(t);
    return point >= offset && point < offset + width_at(t);
  }

  long dependence_sets() const {
    switch (type) {
      case DependenceType::fft:
        return static_cast<long>(std::ceil(std::log2(max_width)));
      case DependenceType::spread:
      case DependenceType::random_nearest:
        return period;
      default:
        return 1;
    }
  }

  long dependence_set_at(long t) const {
    switch (type) {
      case DependenceType::fft:
        return (t + dependence_sets() - 1) % dependence_sets();
      case DependenceType::spread:
      case DependenceType::random_nearest:
        return t % dependence_sets();
      default:
        return 0;
    }
  }

  /// Task Bench's dependency list of `point` in dependence set `dset`, in input order,
  /// before dropping points that do not exist at the previous timestep.
  std::vector<PointRange> dependencies(long dset, long point) const {
    const long w = max_width;
    std::vector<PointRange> deps;
    switch (type) {
      case DependenceType::trivial:
        break;
      case DependenceType::no_comm:
        deps.push_back({point, point});
        break;
      case DependenceType::stencil_1d:
        deps.push_back({std::max(0L, point - 1), std::min(point + 1, w - 1)});
        break;
      case DependenceType::stencil_1d_periodic:
        deps.push_back({std::max(0L, point - 1), std::min(point + 1, w - 1)});
        if (point - 1 < 0) deps.push_back({w - 1, w - 1});
        if (point + 1 >= w) deps.push_back({0, 0});
        break;
      case DependenceType::dom:
        deps.push_back({std::max(0L, point - 1), point});
        break;
      case DependenceType::tree:
        deps.push_back({point / 2, point / 2});
        break;
      case DependenceType::fft: {
        const long stride = 1L << dset;
        if (point - stride >= 0) deps.push_back({point - stride, point - stride});
        deps.push_back({point, point});
        if (point + stride < w) deps.push_back({point + stride, point + stride});
        break;
      }
      case DependenceType::all_to_all:
        deps.push_back({0, w - 1});
        break;
      case DependenceType::nearest:
        if (radix > 0) {
          deps.push_back(
              {std::max(0L, point - radix / 2), std::min(point + (radix - 1) / 2, w - 1)});
        }
        break;
      case DependenceType::spread:
        for (long i = 0; i < radix; ++i) {
          const long dep = (point + i * w / radix + (i > 0 ? dset : 0)) % w;
          deps.push_back({dep, dep});
        }
        break;
      case DependenceType::random_nearest: {
        // Keep each candidate of the nearest window with probability `fraction` (always
        // the point itself); runs of kept candidates become ranges.
        long run_start = -1;
        const long last = std::min(point + (radix - 1) / 2, w - 1);
        long i = std::max(0L, point - radix / 2);
        for (; i <= last; ++i) {
          const std::array<std::int64_t, 5> key = {graph_index, radix, dset, i, point};
          const bool keep = random_uniform(key) < fraction || (radix > 0 && i == point);
          if (keep) {
            if (run_start < 0) run_start = i;
          } else if (run_start >= 0) {
            deps.push_back({run_start, i - 1});
            run_start = -1;
          }
        }
        if (run_start >= 0) deps.push_back({run_start, i - 1});
        break;
      }
    }
    return deps;
  }

  /// Points that may list `point` among their dependencies in dependence set `dset`: a
  /// superset of its consumers, ascending, found from `point` alone (the inverse of each
  /// type's pattern, or every point for all_to_all), so that a rank finds the consumers of
  /// its own points without visiting the others.
  std::vector<long> consumer_candidates(long dset, long point) const {
    const long w = max_width;
    std::vector<long> c;
    // The points first..last, wrapped around the width.
    const auto window = [&](long first, long last) {
      if (last - first + 1 >= w) {
        first = 0;
        last = w - 1;
      }
      for (long x = first; x <= last; ++x) c.push_back(((x % w) + w) % w);
    };
    switch (type) {
      case DependenceType::trivial:
        break;
      case DependenceType::no_comm:
        c.push_back(point);
        break;
      case DependenceType::stencil_1d:
      case DependenceType::stencil_1d_periodic:
        window(point - 1, point + 1);
        break;
      case DependenceType::dom:
        window(point, point + 1);
        break;
      case DependenceType::tree:
        if (2 * point < w) c.push_back(2 * point);
        if (2 * point + 1 < w) c.push_back(2 * point + 1);
        break;
      case DependenceType::fft:
        window(point, point);
        if (point - (1L << dset) >= 0) c.push_back(point - (1L << dset));
        if (point + (1L << dset) < w) c.push_back(point + (1L << dset));
        break;
      case DependenceType::all_to_all:
        window(0, w - 1);
        break;
      case DependenceType::nearest:
      case DependenceType::random_nearest:
        window(point - radix / 2 - 1, point + radix / 2 + 1);
        break;
      case DependenceType::spread:
        for (long i = 0; i < radix; ++i) {
          const long consumer = point - i * w / radix - (i > 0 ? dset : 0);
          window(consumer, consumer);
        }
        break;
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  }
};

/// A rejected option value: the option's Task Bench flag and a sentence saying why.
struct GraphProblem {
  std::string option;
  std::string message;
};

/// Edges per dependence set above which the dependency table is refused (all_to_all grows
/// with width^2).
inline constexpr long kMaxEdgesPerSet = 1L << 24;

/// Task Bench's start-up checks of a graph, plus the cases where Task Bench itself would
/// divide by zero or abort on an assertion, with the dependency lists checked for the points
/// [first, end) only (-1: all points), so that ranks can share the work. std::nullopt if
/// the graph is well formed (as far as those points go).
inline std::optional<GraphProblem> check_graph(const TaskGraph& g, long first = 0, long end = -1) {
  if (end < 0) end = g.max_width;
  const std::string type(to_string(g.type));
  if (needs_period(g.type) && g.period <= 0) {
    return GraphProblem{"-period", fmt::format("type {} needs a period > 0", type)};
  }
  if (!needs_period(g.type) && g.period != 0) {
    return GraphProblem{"-period", fmt::format("type {} does not support a user-configurable "
                                               "period (only spread and random_nearest do)",
                                               type)};
  }
  if (g.type == DependenceType::spread) {
    if (g.radix < 1) return GraphProblem{"-radix", "type spread needs a radix >= 1"};
    const long spread = (g.max_width + g.radix - 1) / g.radix;
    if (g.period > spread) {
      return GraphProblem{"-period", fmt::format("type spread with width {} and radix {} needs a "
                                                 "period <= {} (got {})",
                                                 g.max_width, g.radix, spread, g.period)};
    }
  }
  if (g.type == DependenceType::fft && g.max_width < 2) {
    return GraphProblem{"-width", "type fft needs a width >= 2"};
  }
  if (g.type == DependenceType::all_to_all && g.max_width * g.max_width > kMaxEdgesPerSet) {
    return GraphProblem{"-width",
                        fmt::format("type all_to_all with width {} has {} edges per "
                                    "timestep; at most {} are supported",
                                    g.max_width, g.max_width * g.max_width, kMaxEdgesPerSet)};
  }
  std::vector<long> listed;  // point's dependencies so far
  for (long dset = 0; dset < g.dependence_sets(); ++dset) {
    for (long point = first; point < end; ++point) {
      listed.clear();
      for (const PointRange& r : g.dependencies(dset, point)) {
        for (long p = r.first; p <= r.last; ++p) {
          if (p < 0 || p >= g.max_width) {
            return GraphProblem{"-type", fmt::format("type {} with width {} and radix {} makes "
                                                     "point {} depend on point {}, outside the "
                                                     "graph",
                                                     type, g.max_width, g.radix, point, p)};
          }
          if (std::find(listed.begin(), listed.end(), p) != listed.end()) {
            return GraphProblem{"-type", fmt::format("type {} with width {} and radix {} lists "
                                                     "point {} twice among the dependencies of "
                                                     "point {} (Task Bench rejects this graph)",
                                                     type, g.max_width, g.radix, p, point)};
          }
          listed.push_back(p);
        }
      }
    }
  }
  return std::nullopt;
}

/// The dependence sets of a graph materialized as point lists, both directions, for the
/// points [first, end) of one rank: memory and time grow with those points and their
/// edges, not with the graph's width.
class DependencyTable {
 public:
  /// `g` must have passed check_graph. Rows for every point.
  explicit DependencyTable(const TaskGraph& g) : DependencyTable(g, 0, g.max_width) {}
  /// Rows for the points [first, end) only (0 <= first <= end <= g.max_width).
  DependencyTable(const TaskGraph& g, long first, long end) : graph_(g), first_(first) {
    const long sets = g.dependence_sets();
    producers_.resize(sets);
    consumers_.resize(sets);
    for (long dset = 0; dset < sets; ++dset) {
      Csr& prod = producers_[dset];
      Csr& cons = consumers_[dset];
      prod.start.push_back(0);
      cons.start.push_back(0);
      for (long x = first; x < end; ++x) {
        for (const PointRange& r : g.dependencies(dset, x)) {
          for (long y = r.first; y <= r.last; ++y) prod.points.push_back(y);
        }
        prod.start.push_back(prod.points.size());
        for (long c : g.consumer_candidates(dset, x)) {
          for (const PointRange& r : g.dependencies(dset, c)) {
            if (r.first <= x && x <= r.last) cons.points.push_back(c);
          }
        }
        cons.start.push_back(cons.points.size());
      }
    }
  }

  const TaskGraph& graph() const { return graph_; }

  /// Points `point` depends on in dependence set `dset`, in input order (all of them,
  /// whether they exist at the previous timestep or not). `point` in [first, end).
  std::span<const long> producers(long dset, long point) const {
    return producers_[dset].row(point - first_);
  }
  /// Points that list `point` among their producers in dependence set `dset`, ascending.
  /// `point` in [first, end).
  std::span<const long> consumers(long dset, long point) const {
    return consumers_[dset].row(point - first_);
  }

  /// Calls f(y) for each input of task (t, point), in input order: its producers that
  /// exist at t - 1.
  template <class F>
  void for_each_input(long t, long point, F&& f) const {
    if (t == 0) return;
    for (long y : producers(graph_.dependence_set_at(t), point)) {
      if (graph_.exists(t - 1, y)) f(y);
    }
  }

  /// Calls f(x) for each task (t + 1, x) that takes (t, point) as an input.
  template <class F>
  void for_each_consumer(long t, long point, F&& f) const {
    if (t + 1 >= graph_.timesteps) return;
    for (long x : consumers(graph_.dependence_set_at(t + 1), point)) {
      if (graph_.exists(t + 1, x)) f(x);
    }
  }

  /// Number of inputs of task (t, point).
  long input_count(long t, long point) const {
    long n = 0;
    for_each_input(t, point, [&](long) { ++n; });
    return n;
  }

 private:
  struct Csr {
    std::vector<std::size_t> start;
    std::vector<long> points;
    std::span<const long> row(long i) const {
      return {points.data() + start[i], start[i + 1] - start[i]};
    }
  };
  TaskGraph graph_;
  long first_ = 0;
  std::vector<Csr> producers_;
  std::vector<Csr> consumers_;
};

}  // namespace tessera::taskbench
