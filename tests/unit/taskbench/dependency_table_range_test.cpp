// A rank's dependency table covers only its own points: its rows equal those of the whole
// graph, and the consumers found from each type's inverse pattern equal a scan of every
// point's dependency list.
#include <gtest/gtest.h>

#include <vector>

#include "../../../apps/taskbench/summary.hpp"
#include "../../../apps/taskbench/task_graph.hpp"

namespace tessera::taskbench {
namespace {

// Consumers of `point` by visiting every point: the reference the table must not need.
std::vector<long> scanned_consumers(const TaskGraph& g, long dset, long point) {
  std::vector<long> out;
  for (long x = 0; x < g.max_width; ++x) {
    for (const PointRange& r : g.dependencies(dset, x)) {
      if (r.first <= point && point <= r.last) out.push_back(x);
    }
  }
  return out;
}

std::vector<long> as_vector(std::span<const long> s) {
  return {s.begin(), s.end()};
}

TEST(DependencyTableRange, RowsOfAPointRangeMatchTheWholeGraphAndAFullScan) {
  for (const auto& [type, name] : kDependenceNames) {
    for (long width : {1L, 2L, 7L, 16L, 33L}) {
      for (long radix : {0L, 1L, 3L, 4L, 9L, 40L}) {
        const long period = needs_period(type) ? 3 : 0;
        TaskGraph g{.timesteps = 4,
                    .max_width = width,
                    .type = type,
                    .radix = radix,
                    .period = period,
                    .fraction = 0.4};
        if (check_graph(g)) continue;
        const DependencyTable whole(g);
        for (long first : {0L, width / 3}) {
          const long end = std::min(width, first + width / 2 + 1);
          const DependencyTable part(g, first, end);
          for (long dset = 0; dset < g.dependence_sets(); ++dset) {
            for (long p = first; p < end; ++p) {
              ASSERT_EQ(as_vector(part.producers(dset, p)), as_vector(whole.producers(dset, p)))
                  << name << " width " << width << " radix " << radix << " point " << p;
              ASSERT_EQ(as_vector(part.consumers(dset, p)), scanned_consumers(g, dset, p))
                  << name << " width " << width << " radix " << radix << " point " << p;
            }
          }
        }
      }
    }
  }
}

TEST(DependencyTableRange, CheckingPointRangesFindsWhatCheckingAllPointsFinds) {
  // spread with radix 5 on width 4 lists a point twice; only ranges holding such a point
  // report it.
  const TaskGraph g{
      .timesteps = 3, .max_width = 4, .type = DependenceType::spread, .radix = 5, .period = 1};
  const auto all = check_graph(g);
  ASSERT_TRUE(all);
  bool found = false;
  for (long p = 0; p < 4; ++p) found = found || check_graph(g, p, p + 1).has_value();
  EXPECT_TRUE(found);
  EXPECT_FALSE(check_graph(g, 0, 0));
}

TEST(DependencyTableRange, TotalsOfPointRangesAddUpToTheWholeGraph) {
  for (const auto& [type, name] : kDependenceNames) {
    RunConfig c;
    c.graph = TaskGraph{.timesteps = 9,
                        .max_width = 13,
                        .type = type,
                        .radix = 3,
                        .period = needs_period(type) ? 2 : 0};
    c.nodes = 3;
    c.kernel.type = KernelType::compute_bound;
    c.kernel.iterations = 7;
    if (check_config(c)) continue;
    const Totals whole = count_totals(c);
    Totals sum;
    for (long first : {0L, 4L, 5L, 11L}) {
      const long end = first == 0 ? 4 : first == 4 ? 5 : first == 5 ? 11 : 13;
      const Totals part = count_totals(c, first, end);
      sum.tasks += part.tasks;
      sum.dependencies += part.dependencies;
      sum.local_dependencies += part.local_dependencies;
      sum.nonlocal_dependencies += part.nonlocal_dependencies;
      sum.flops += part.flops;
      sum.bytes += part.bytes;
    }
    EXPECT_EQ(sum.tasks, whole.tasks) << name;
    EXPECT_EQ(sum.dependencies, whole.dependencies) << name;
    EXPECT_EQ(sum.local_dependencies, whole.local_dependencies) << name;
    EXPECT_EQ(sum.nonlocal_dependencies, whole.nonlocal_dependencies) << name;
    EXPECT_EQ(sum.flops, whole.flops) << name;
    EXPECT_EQ(sum.bytes, whole.bytes) << name;
    EXPECT_GT(whole.tasks, 0) << name;
  }
}

}  // namespace
}  // namespace tessera::taskbench
