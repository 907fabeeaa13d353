// Per-name task time totals keyed by the name's address.
#include "record/task_time_table.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace tessera::obs {
namespace {

std::map<const char*, TaskTimeTable::Entry> entries(const TaskTimeTable& table) {
  std::map<const char*, TaskTimeTable::Entry> out;
  table.for_each([&](const TaskTimeTable::Entry& e) { out[e.name] = e; });
  return out;
}

TEST(TaskTimeTable, SumsCountAndTimePerName) {
  static const char* const kStencil = "stencil";
  static const char* const kPack = "pack";
  TaskTimeTable table(4);
  table.add(kStencil, 10);
  table.add(kPack, 3);
  table.add(kStencil, 5);
  const auto e = entries(table);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.at(kStencil).count, 2u);
  EXPECT_EQ(e.at(kStencil).total, 15);
  EXPECT_EQ(e.at(kPack).count, 1u);
  EXPECT_EQ(e.at(kPack).total, 3);
}

TEST(TaskTimeTable, GrowsBeyondItsInitialCapacityWithoutLosingEntries) {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("task" + std::to_string(i));
  TaskTimeTable table(2);
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      table.add(names[i].c_str(), static_cast<std::int64_t>(i));
    }
  }
  EXPECT_EQ(table.size(), names.size());
  const auto e = entries(table);
  ASSERT_EQ(e.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& entry = e.at(names[i].c_str());
    ASSERT_EQ(entry.count, 3u);
    ASSERT_EQ(entry.total, static_cast<std::int64_t>(3 * i));
  }
}

TEST(TaskTimeTable, KeysByAddressSoEqualTextAtTwoAddressesStaysSeparate) {
  const std::string a = "halo";
  const std::string b = "halo";
  TaskTimeTable table;
  table.add(a.c_str(), 1);
  table.add(b.c_str(), 2);
  EXPECT_EQ(table.size(), 2u);
}

TEST(TaskTimeTable, CountsANullNameAsTheEmptyName) {
  TaskTimeTable table;
  table.add(nullptr, 4);
  table.add(nullptr, 6);
  ASSERT_EQ(table.size(), 1u);
  table.for_each([](const TaskTimeTable::Entry& e) {
    EXPECT_STREQ(e.name, "");
    EXPECT_EQ(e.count, 2u);
    EXPECT_EQ(e.total, 10);
  });
}

}  // namespace
}  // namespace tessera::obs
