// Several task graphs in one run (Task Bench's -and): the arguments split into graphs as
// Task Bench splits them, and the configuration blocks, dependency listings and summary
// totals match what Task Bench printed for the same command line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../../apps/taskbench/distribution.hpp"
#include "../../../apps/taskbench/flags.hpp"
#include "../../../apps/taskbench/summary.hpp"

namespace tessera::taskbench {
namespace {

GraphArguments split(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return split_graphs(translate_task_bench_flags(static_cast<int>(argv.size()), argv.data()));
}

using Args = std::vector<std::string>;

TEST(SeveralGraphs, OneGraphIsLeftAsItIs) {
  const GraphArguments g = split({"taskbench", "-steps", "3", "--threads", "2", "-v"});
  EXPECT_EQ(g.run, (Args{"taskbench", "--steps", "3", "--threads", "2", "-v"}));
  EXPECT_TRUE(g.later_graphs.empty());
  EXPECT_FALSE(g.problem);
}

TEST(SeveralGraphs, AndStartsAGraphWithItsOwnFlags) {
  const GraphArguments g = split({"taskbench",
                                  "-steps",
                                  "4",
                                  "-type",
                                  "stencil_1d",
                                  "-and",
                                  "-steps",
                                  "3",
                                  "-type",
                                  "random_nearest",
                                  "-period",
                                  "2",
                                  "-and",
                                  "-width",
                                  "4",
                                  "-kernel",
                                  "compute_bound",
                                  "-iter",
                                  "10",
                                  "-output",
                                  "32",
                                  "-scratch",
                                  "64",
                                  "-sample",
                                  "2",
                                  "-imbalance",
                                  "0.5",
                                  "-radix",
                                  "5",
                                  "-fraction",
                                  "-0.5"});
  EXPECT_EQ(g.run, (Args{"taskbench", "--steps", "4", "--type", "stencil_1d"}));
  ASSERT_EQ(g.later_graphs.size(), 2U);
  EXPECT_EQ(g.later_graphs[0], (Args{"--steps", "3", "--type", "random_nearest", "--period", "2"}));
  // A graph flag takes the next argument as its value, whatever it looks like.
  EXPECT_EQ(g.later_graphs[1], (Args{"--width", "4", "--kernel", "compute_bound", "--iter", "10",
                                     "--output", "32", "--scratch", "64", "--sample", "2",
                                     "--imbalance", "0.5", "--radix", "5", "--fraction", "-0.5"}));
  EXPECT_FALSE(g.problem);
}

TEST(SeveralGraphs, RunWideFlagsAfterAndApplyToTheRun) {
  // As in Task Bench, -nodes and -v hold for the whole run wherever they stand; tessera's
  // options too, and anything unknown is left for the parser to reject by name.
  const GraphArguments g = split({"taskbench", "-steps", "4", "-and", "-v", "-steps", "3", "-nodes",
                                  "2", "--exec", "bsp", "-bogus", "--width=8"});
  EXPECT_EQ(g.run,
            (Args{"taskbench", "--steps", "4", "-v", "--nodes", "2", "--exec", "bsp", "-bogus"}));
  ASSERT_EQ(g.later_graphs.size(), 1U);
  EXPECT_EQ(g.later_graphs[0], (Args{"--steps", "3", "--width=8"}));
}

TEST(SeveralGraphs, AndWithoutFlagsIsAProblem) {
  for (const Args& args :
       {Args{"taskbench", "-steps", "4", "-and"}, Args{"taskbench", "-and", "-and", "-steps", "2"},
        Args{"taskbench", "-steps", "4", "-and", "-v"}}) {
    const GraphArguments g = split(args);
    ASSERT_TRUE(g.problem) << args.size();
    EXPECT_EQ(g.problem->first, "-and");
    EXPECT_NE(g.problem->second.find("task graph 2 has no flags"), std::string::npos)
        << g.problem->second;
  }
  const GraphArguments g = split({"taskbench", "-and", "-steps", "2", "-and"});
  ASSERT_TRUE(g.problem);
  EXPECT_NE(g.problem->second.find("task graph 3 has no flags"), std::string::npos);
}

// Task Bench (core, -v) for:
//   -steps 4 -width 6 -type stencil_1d
//   -and -steps 3 -width 6 -type random_nearest -radix 3 -period 2 -fraction 0.5 -v
//   -and -steps 5 -width 4 -type tree -kernel compute_bound -iter 10 -output 32 -nodes 2
// (its summary with an elapsed time of 1 second). The second graph's random edges depend
// on its graph index, 1.
std::vector<RunConfig> three_graphs() {
  return {
      RunConfig{.graph = {.graph_index = 0,
                          .timesteps = 4,
                          .max_width = 6,
                          .type = DependenceType::stencil_1d},
                .nodes = 2},
      RunConfig{.graph = {.graph_index = 1,
                          .timesteps = 3,
                          .max_width = 6,
                          .type = DependenceType::random_nearest,
                          .radix = 3,
                          .period = 2,
                          .fraction = 0.5},
                .nodes = 2},
      RunConfig{
          .graph = {.graph_index = 2, .timesteps = 5, .max_width = 4, .type = DependenceType::tree},
          .kernel = {.type = KernelType::compute_bound, .iterations = 10},
          .output_bytes = 32,
          .nodes = 2},
  };
}

const char* const kStencilBlock =
    "    Task Graph 1:\n"
    "      Time Steps: 4\n"
    "      Max Width: 6\n"
    "      Dependence Type: stencil_1d\n"
    "      Radix: 3\n"
    "      Period: 0\n"
    "      Fraction Connected: 0.250000\n"
    "      Kernel:\n"
    "        Type: empty\n"
    "        Iterations: 0\n"
    "        Samples: 16\n"
    "        Imbalance: 0.000000\n"
    "      Output Bytes: 16\n"
    "      Scratch Bytes: 0\n";

const char* const kRandomBlock =
    "    Task Graph 2:\n"
    "      Time Steps: 3\n"
    "      Max Width: 6\n"
    "      Dependence Type: random_nearest\n"
    "      Radix: 3\n"
    "      Period: 2\n"
    "      Fraction Connected: 0.500000\n"
    "      Kernel:\n"
    "        Type: empty\n"
    "        Iterations: 0\n"
    "        Samples: 16\n"
    "        Imbalance: 0.000000\n"
    "      Output Bytes: 16\n"
    "      Scratch Bytes: 0\n";

const char* const kRandomListing =
    "      Timestep 0 (offset 0, width 6, last offset 0, last width 0):\n"
    "        Points: 0 1 2 3 4 5\n"
    "        Dependencies:\n"
    "          Point 0:\n"
    "          Point 1:\n"
    "          Point 2:\n"
    "          Point 3:\n"
    "          Point 4:\n"
    "          Point 5:\n"
    "      Timestep 1 (offset 0, width 6, last offset 0, last width 6):\n"
    "        Points: 0 1 2 3 4 5\n"
    "        Dependencies:\n"
    "          Point 0: 0\n"
    "          Point 1: 0 1\n"
    "          Point 2: 2 3\n"
    "          Point 3: 2 3 4\n"
    "          Point 4: 3 4\n"
    "          Point 5: 4 5\n"
    "      Timestep 2 (offset 0, width 6, last offset 0, last width 6):\n"
    "        Points: 0 1 2 3 4 5\n"
    "        Dependencies:\n"
    "          Point 0: 0\n"
    "          Point 1: 0 1\n"
    "          Point 2: 2 3\n"
    "          Point 3: 3 4\n"
    "          Point 4: 4\n"
    "          Point 5: 4 5\n";

const char* const kTreeBlock =
    "    Task Graph 3:\n"
    "      Time Steps: 5\n"
    "      Max Width: 4\n"
    "      Dependence Type: tree\n"
    "      Radix: 3\n"
    "      Period: 0\n"
    "      Fraction Connected: 0.250000\n"
    "      Kernel:\n"
    "        Type: compute_bound\n"
    "        Iterations: 10\n"
    "        Samples: 16\n"
    "        Imbalance: 0.000000\n"
    "      Output Bytes: 32\n"
    "      Scratch Bytes: 0\n";

TEST(SeveralGraphs, ConfigurationBlocksAreNumberedAsTaskBenchNumbersThem) {
  const std::vector<RunConfig> c = three_graphs();
  for (const RunConfig& g : c) ASSERT_FALSE(check_config(g));
  EXPECT_EQ(graph_configuration_text(c[0], 1), kStencilBlock);
  EXPECT_EQ(graph_configuration_text(c[1], 2), kRandomBlock);
  EXPECT_EQ(graph_configuration_text(c[2], 3), kTreeBlock);
}

TEST(SeveralGraphs, DependenceSetsFollowTheGraphIndex) {
  const std::vector<RunConfig> c = three_graphs();
  EXPECT_EQ(dependency_listing(DependencyTable(c[1].graph)), kRandomListing);
  // The same graph as the first of a run draws other edges.
  TaskGraph first = c[1].graph;
  first.graph_index = 0;
  EXPECT_NE(dependency_listing(DependencyTable(first)), kRandomListing);
}

TEST(SeveralGraphs, SummaryAddsUpEveryGraph) {
  Totals totals;
  for (const RunConfig& g : three_graphs()) totals += count_totals(g);
  // Each graph's transfer is counted with its own output size (16, 16, 32 bytes).
  EXPECT_EQ(summary_text(2, totals, 1.0),
            "Total Tasks 57\n"
            "Total Dependencies 84\n"
            "  Local Dependencies 69 (estimated)\n"
            "  Nonlocal Dependencies 15 (estimated)\n"
            "  Number of Nodes (used for estimate) 2\n"
            "Total FLOPs 20160\n"
            "Total Bytes 0\n"
            "Elapsed Time 1.000000e+00 seconds\n"
            "FLOP/s 2.016000e+04\n"
            "B/s 0.000000e+00\n"
            "Transfer (estimated):\n"
            "  Local Bytes 1232\n"
            "  Nonlocal Bytes 336\n"
            "  Local Bandwidth 1.232000e+03 B/s\n"
            "  Nonlocal Bandwidth 3.360000e+02 B/s\n");
}

TEST(SeveralGraphs, TotalsOverRankRangesAddUpToTheGraphs) {
  // What each rank counts for its own points sums to the whole run's totals.
  Totals whole, by_ranks;
  for (const RunConfig& g : three_graphs()) {
    whole += count_totals(g);
    const BlockDistribution points{g.graph.max_width, 3};
    for (int r = 0; r < 3; ++r) by_ranks += count_totals(g, points.first(r), points.end(r));
  }
  EXPECT_EQ(by_ranks.tasks, whole.tasks);
  EXPECT_EQ(by_ranks.dependencies, whole.dependencies);
  EXPECT_EQ(by_ranks.local_transfer, whole.local_transfer);
  EXPECT_EQ(by_ranks.nonlocal_transfer, whole.nonlocal_transfer);
  EXPECT_EQ(by_ranks.flops, whole.flops);
}

}  // namespace
}  // namespace tessera::taskbench
