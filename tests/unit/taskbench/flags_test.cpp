// Task Bench's single-dash flags become CLI11 long options; nothing else changes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../../apps/taskbench/flags.hpp"

namespace tessera::taskbench {
namespace {

std::vector<std::string> translate(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return translate_task_bench_flags(static_cast<int>(argv.size()), argv.data());
}

TEST(TaskBenchFlags, SingleDashFlagsGainADash) {
  EXPECT_EQ(translate({"taskbench", "-steps", "10", "-width", "4", "-type", "stencil_1d"}),
            (std::vector<std::string>{"taskbench", "--steps", "10", "--width", "4", "--type",
                                      "stencil_1d"}));
}

TEST(TaskBenchFlags, OtherArgumentsPassThrough) {
  EXPECT_EQ(translate({"taskbench", "-radix", "-1", "--threads", "2", "-v", "-h", "-stepsx"}),
            (std::vector<std::string>{"taskbench", "--radix", "-1", "--threads", "2", "-v", "-h",
                                      "-stepsx"}));
}

TEST(TaskBenchFlags, ProgramNameIsNeverRewritten) {
  EXPECT_EQ(translate({"-steps"}), (std::vector<std::string>{"-steps"}));
}

}  // namespace
}  // namespace tessera::taskbench
