// The pieces of the memory check that read the machine: MemAvailable, cgroup v1/v2 limits
// over a process's cgroup and its ancestors, and the one-line verdict.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tessera/memory_check.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tessera-cgroup-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST(MemoryEstimate, SumsItemsAndMergesRepeatedNames) {
  MemoryEstimate need;
  need.add("fields", 1.5e9);
  need.add("metadata", 2e3);
  need.add("fields", 0.5e9);
  EXPECT_DOUBLE_EQ(need.total(), 2e9 + 2e3);
  EXPECT_EQ(need.breakdown(), "fields 2.0 GB, metadata 2.0 kB");
}

TEST(MemoryCheck, FormatsBytesInDecimalUnits) {
  EXPECT_EQ(format_bytes(12), "12 B");
  EXPECT_EQ(format_bytes(640e3), "640.0 kB");
  EXPECT_EQ(format_bytes(11.5e9), "11.5 GB");
  EXPECT_EQ(format_bytes(1.4e12), "1.4 TB");
  EXPECT_EQ(format_bytes(4.2e21), "4200.0 EB");
}

TEST(MemoryCheck, ShortfallOnlyWhenTheNeedExceedsTheOffer) {
  EXPECT_FALSE(memory_shortfall(1e9, 1e9));
  EXPECT_EQ(memory_shortfall(1.4e12, 11.5e9).value_or(""),
            "needs 1.4 TB per rank, 11.5 GB available per rank on this node");
}

TEST(MemoryCheck, ReadsMemAvailableInKilobytes) {
  EXPECT_EQ(meminfo_available("MemTotal:  32000000 kB\nMemFree: 1000 kB\nMemAvailable:   "
                              "23823032 kB\nBuffers: 5 kB\n"),
            23823032.0 * 1024);
  EXPECT_FALSE(meminfo_available("MemTotal: 5 kB\n"));
}

TEST_F(CgroupTree, V2TakesTheTightestLimitOverAncestorsMinusUsage) {
  write(root_ / "job/memory.max", "max\n");
  write(root_ / "job/memory.current", "100\n");
  write(root_ / "job/step/memory.max", "8000\n");
  write(root_ / "job/step/memory.current", "3000\n");
  write(root_ / "job/step/task/memory.max", "max\n");
  EXPECT_EQ(cgroup_headroom(root_.string(), "0::/job/step/task\n"), 5000.0);
  write(root_ / "job/memory.max", "4000\n");
  EXPECT_EQ(cgroup_headroom(root_.string(), "0::/job/step/task\n"), 3900.0);
}

TEST_F(CgroupTree, V1ReadsTheMemoryControllerAndIgnoresHugeLimits) {
  write(root_ / "memory/process_api/abc/memory.limit_in_bytes", "9223372036854771712\n");
  write(root_ / "memory/process_api/abc/memory.usage_in_bytes", "10\n");
  const std::string self = "5:devices:/\n4:memory:/process_api/abc\n0::/\n";
  EXPECT_FALSE(cgroup_headroom(root_.string(), self));
  write(root_ / "memory/process_api/memory.limit_in_bytes", "1000000\n");
  write(root_ / "memory/process_api/memory.usage_in_bytes", "250000\n");
  EXPECT_EQ(cgroup_headroom(root_.string(), self), 750000.0);
}

TEST_F(CgroupTree, NoLimitFilesMeansNoLimit) {
  fs::create_directories(root_);
  EXPECT_FALSE(cgroup_headroom(root_.string(), "0::/user.slice\n"));
}

}  // namespace
}  // namespace tessera
