// Task Bench's printed configuration and summary, byte for byte, against what Task Bench
// printed for the same runs (so Task Bench's scripts parse tessera's output).
#include <gtest/gtest.h>

#include <string>

#include "../../../apps/taskbench/summary.hpp"

namespace tessera::taskbench {
namespace {

// Task Bench: -steps 100 -width 2 -type stencil_1d -kernel compute_bound -iter 1000
const RunConfig kStencil{
    .graph = {.timesteps = 100, .max_width = 2, .type = DependenceType::stencil_1d},
    .kernel = {.type = KernelType::compute_bound, .iterations = 1000}};

TEST(Summary, ConfigurationBlockMatchesTaskBench) {
  EXPECT_EQ(configuration_text(kStencil),
            "Running Task Benchmark\n"
            "  Configuration:\n"
            "    Task Graph 1:\n"
            "      Time Steps: 100\n"
            "      Max Width: 2\n"
            "      Dependence Type: stencil_1d\n"
            "      Radix: 3\n"
            "      Period: 0\n"
            "      Fraction Connected: 0.250000\n"
            "      Kernel:\n"
            "        Type: compute_bound\n"
            "        Iterations: 1000\n"
            "        Samples: 16\n"
            "        Imbalance: 0.000000\n"
            "      Output Bytes: 16\n"
            "      Scratch Bytes: 0\n");
}

TEST(Summary, SummaryLinesMatchTaskBench) {
  const Totals totals = count_totals(kStencil);
  EXPECT_EQ(summary_text(kStencil, totals, 2.873610e-04),
            "Total Tasks 200\n"
            "Total Dependencies 396\n"
            "  Unable to estimate local/nonlocal dependencies\n"
            "Total FLOPs 25612800\n"
            "Total Bytes 0\n"
            "Elapsed Time 2.873610e-04 seconds\n"
            "FLOP/s 8.913109e+10\n"
            "B/s 0.000000e+00\n"
            "Transfer (estimated):\n"
            "  Unable to estimate local/nonlocal transfer\n");
}

// Task Bench: -steps 10 -width 4 -type nearest -radix 3 -kernel memory_bound -iter 8
// -scratch 65536 -sample 4 -output 64 -nodes 2
TEST(Summary, NodeEstimatesMatchTaskBench) {
  const RunConfig c{.graph = {.timesteps = 10, .max_width = 4, .type = DependenceType::nearest},
                    .kernel = {.type = KernelType::memory_bound, .iterations = 8, .samples = 4},
                    .output_bytes = 64,
                    .scratch_bytes = 65536,
                    .nodes = 2};
  ASSERT_FALSE(check_config(c));
  const Totals totals = count_totals(c);
  EXPECT_EQ(totals.dependencies, 90);
  EXPECT_EQ(totals.local_dependencies, 72);
  EXPECT_EQ(totals.nonlocal_dependencies, 18);
  EXPECT_EQ(totals.bytes, 5242880);
  const std::string text = summary_text(c, totals, 1.0);
  EXPECT_NE(text.find("  Local Dependencies 72 (estimated)\n  Nonlocal Dependencies 18 "
                      "(estimated)\n  Number of Nodes (used for estimate) 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  Local Bytes 4608\n  Nonlocal Bytes 1152\n"), std::string::npos) << text;
}

TEST(Summary, VerboseListingShowsOnlyExistingInputs) {
  const DependencyTable table(
      TaskGraph{.timesteps = 2, .max_width = 3, .type = DependenceType::stencil_1d});
  EXPECT_EQ(dependency_listing(table),
            "      Timestep 0 (offset 0, width 3, last offset 0, last width 0):\n"
            "        Points: 0 1 2\n"
            "        Dependencies:\n"
            "          Point 0:\n"
            "          Point 1:\n"
            "          Point 2:\n"
            "      Timestep 1 (offset 0, width 3, last offset 0, last width 3):\n"
            "        Points: 0 1 2\n"
            "        Dependencies:\n"
            "          Point 0: 0 1\n"
            "          Point 1: 0 1 2\n"
            "          Point 2: 1 2\n");
}

}  // namespace
}  // namespace tessera::taskbench
