// Task Bench's graph shapes: points per timestep, dependency lists, totals and the
// start-up checks, against what Task Bench itself prints.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../../../apps/taskbench/summary.hpp"
#include "../../../apps/taskbench/task_graph.hpp"

namespace tessera::taskbench {
namespace {

TaskGraph graph_of(DependenceType type, long width, long steps, long radix = 3, long period = 0) {
  return TaskGraph{
      .timesteps = steps, .max_width = width, .type = type, .radix = radix, .period = period};
}

std::vector<long> inputs_of(const DependencyTable& table, long t, long x) {
  std::vector<long> in;
  table.for_each_input(t, x, [&](long y) { in.push_back(y); });
  return in;
}

struct ExpectedTotals {
  DependenceType type;
  long radix;
  long period;
  long long tasks;
  long long dependencies;
};

// "Total Tasks" and "Total Dependencies" printed by Task Bench for -steps 5 -width 8.
TEST(TaskGraph, TotalsMatchTaskBenchForEveryType) {
  const std::vector<ExpectedTotals> expected = {
      {DependenceType::trivial, 3, 0, 40, 0},
      {DependenceType::no_comm, 3, 0, 40, 32},
      {DependenceType::stencil_1d, 3, 0, 40, 88},
      {DependenceType::stencil_1d_periodic, 3, 0, 40, 96},
      {DependenceType::dom, 3, 0, 9, 10},
      {DependenceType::tree, 3, 0, 23, 22},
      {DependenceType::fft, 3, 0, 40, 80},
      {DependenceType::all_to_all, 3, 0, 40, 256},
      {DependenceType::nearest, 3, 0, 40, 88},
      {DependenceType::spread, 2, 2, 40, 64},
  };
  for (const auto& e : expected) {
    const RunConfig c{.graph = graph_of(e.type, 8, 5, e.radix, e.period)};
    ASSERT_FALSE(check_config(c)) << to_string(e.type);
    const Totals totals = count_totals(c);
    EXPECT_EQ(totals.tasks, e.tasks) << to_string(e.type);
    EXPECT_EQ(totals.dependencies, e.dependencies) << to_string(e.type);
    // The table-driven inputs the app verifies add up to the same count.
    const DependencyTable table(c.graph);
    long long inputs = 0;
    for (long t = 0; t < c.graph.timesteps; ++t) {
      for (long x = 0; x < c.graph.max_width; ++x) {
        if (c.graph.exists(t, x)) inputs += table.input_count(t, x);
      }
    }
    EXPECT_EQ(inputs, e.dependencies) << to_string(e.type);
  }
}

TEST(TaskGraph, DomIsADiamondSlidingRight) {
  const DependencyTable table(graph_of(DependenceType::dom, 8, 5));
  const TaskGraph& g = table.graph();
  const std::vector<std::vector<long>> points = {{3}, {4, 5}, {5, 6, 7}, {6, 7}, {7}};
  for (long t = 0; t < 5; ++t) {
    std::vector<long> present;
    for (long x = 0; x < 8; ++x) {
      if (g.exists(t, x)) present.push_back(x);
    }
    EXPECT_EQ(present, points[t]) << "timestep " << t;
  }
  EXPECT_EQ(inputs_of(table, 1, 4), (std::vector<long>{3}));  // 4 did not exist at t=0
  EXPECT_EQ(inputs_of(table, 2, 5), (std::vector<long>{4, 5}));
  EXPECT_EQ(inputs_of(table, 2, 7), (std::vector<long>{}));  // 6 and 7 came later
}

TEST(TaskGraph, TreeDoublesUntilFullWidthWithOneParent) {
  const DependencyTable table(graph_of(DependenceType::tree, 8, 5));
  EXPECT_EQ(table.graph().width_at(0), 1);
  EXPECT_EQ(table.graph().width_at(2), 4);
  EXPECT_EQ(table.graph().width_at(4), 8);
  EXPECT_EQ(inputs_of(table, 3, 5), (std::vector<long>{2}));
}

TEST(TaskGraph, FftStridesCycleThroughPowersOfTwo) {
  const DependencyTable table(graph_of(DependenceType::fft, 8, 5));
  EXPECT_EQ(inputs_of(table, 1, 4), (std::vector<long>{3, 4, 5}));
  EXPECT_EQ(inputs_of(table, 2, 4), (std::vector<long>{2, 4, 6}));
  EXPECT_EQ(inputs_of(table, 3, 4), (std::vector<long>{0, 4}));
  EXPECT_EQ(inputs_of(table, 4, 4), (std::vector<long>{3, 4, 5}));
}

TEST(TaskGraph, SpreadAddsTheDependenceSetToTheFarEdges) {
  const DependencyTable table(graph_of(DependenceType::spread, 8, 5, 2, 2));
  EXPECT_EQ(inputs_of(table, 1, 0), (std::vector<long>{0, 5}));
  EXPECT_EQ(inputs_of(table, 2, 0), (std::vector<long>{0, 4}));
  EXPECT_EQ(inputs_of(table, 1, 6), (std::vector<long>{6, 3}));
}

TEST(TaskGraph, PeriodicStencilWrapsAround) {
  const DependencyTable table(graph_of(DependenceType::stencil_1d_periodic, 8, 3));
  EXPECT_EQ(inputs_of(table, 1, 0), (std::vector<long>{0, 1, 7}));
  EXPECT_EQ(inputs_of(table, 1, 7), (std::vector<long>{6, 7, 0}));
}

TEST(TaskGraph, NearestWindowFollowsRadix) {
  const DependencyTable even(graph_of(DependenceType::nearest, 8, 3, 4));
  EXPECT_EQ(inputs_of(even, 1, 4), (std::vector<long>{2, 3, 4, 5}));
  const DependencyTable none(graph_of(DependenceType::nearest, 8, 3, 0));
  EXPECT_EQ(inputs_of(none, 1, 4), (std::vector<long>{}));
}

TEST(DependencyTable, ConsumersMirrorProducersForEveryType) {
  for (const auto& [type, name] : kDependenceNames) {
    for (long width : {3L, 5L, 8L, 13L}) {
      const long period = needs_period(type) ? 2 : 0;
      TaskGraph g = graph_of(type, width, 6, 3, period);
      if (check_graph(g)) continue;
      const DependencyTable table(g);
      for (long t = 0; t + 1 < g.timesteps; ++t) {
        std::multiset<std::pair<long, long>> forward, backward;
        for (long x = 0; x < width; ++x) {
          if (!g.exists(t + 1, x)) continue;
          table.for_each_input(t + 1, x, [&](long y) { forward.insert({y, x}); });
        }
        for (long y = 0; y < width; ++y) {
          if (!g.exists(t, y)) continue;
          table.for_each_consumer(t, y, [&](long x) { backward.insert({y, x}); });
        }
        EXPECT_EQ(forward, backward) << name << " width " << width << " timestep " << t;
      }
    }
  }
}

TEST(CheckConfig, RejectsWhatTaskBenchRejectsNamingTheOption) {
  auto problem = [](RunConfig c) {
    auto p = check_config(c);
    return p ? p->option : std::string("none");
  };
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::stencil_1d, 4, 4)}), "none");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::stencil_1d, 4, 4, 3, 2)}), "-period");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::spread, 4, 4, 3, 0)}), "-period");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::spread, 8, 4, 2, 5)}), "-period");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::spread, 8, 4, 0, 1)}), "-radix");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::fft, 1, 4)}), "-width");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::stencil_1d_periodic, 2, 4)}), "-type");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::spread, 4, 4, 8, 1)}), "-type");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::trivial, 0, 4)}), "-width");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::trivial, 4, 0)}), "-steps");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::trivial, 4, 4), .output_bytes = 15}),
            "-output");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::trivial, 4, 4), .scratch_bytes = 12}),
            "-scratch");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::trivial, 4, 4),
                     .kernel = {.type = KernelType::memory_bound, .iterations = 1}}),
            "-scratch");
  EXPECT_EQ(problem({.graph = graph_of(DependenceType::trivial, 4, 4),
                     .kernel = {.type = KernelType::load_imbalance, .imbalance = 3}}),
            "-imbalance");
}

}  // namespace
}  // namespace tessera::taskbench
