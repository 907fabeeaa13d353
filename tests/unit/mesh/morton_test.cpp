// Morton encoding and the balanced split of a curve over ranks.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "tessera/mesh/morton.hpp"

namespace tessera {
namespace {

TEST(Morton, InterleavesBitsWithXLowest) {
  EXPECT_EQ(morton_encode(0, 0, 0), 0u);
  EXPECT_EQ(morton_encode(1, 0, 0), 1u);
  EXPECT_EQ(morton_encode(0, 1, 0), 2u);
  EXPECT_EQ(morton_encode(0, 0, 1), 4u);
  EXPECT_EQ(morton_encode(2, 0, 0), 8u);
  EXPECT_EQ(morton_encode(3, 3, 3), 63u);
  EXPECT_EQ(morton_encode(kMortonMaxCoordinate, 0, 0), 0x1249249249249249ULL);
}

TEST(Morton, DecodeInvertsEncode) {
  for (std::uint32_t x : {0u, 1u, 5u, 1000u, 123456u, kMortonMaxCoordinate}) {
    for (std::uint32_t y : {0u, 7u, 99999u, kMortonMaxCoordinate}) {
      for (std::uint32_t z : {0u, 3u, 2097000u}) {
        const auto c = morton_decode(morton_encode(x, y, z));
        EXPECT_EQ(c[0], x);
        EXPECT_EQ(c[1], y);
        EXPECT_EQ(c[2], z);
      }
    }
  }
}

TEST(Morton, RejectsCoordinatesBeyond21Bits) {
  EXPECT_THROW(morton_encode(kMortonMaxCoordinate + 1, 0, 0), std::out_of_range);
}

TEST(Morton, CodesOfAGridAreDistinct) {
  std::set<std::uint64_t> codes;
  for (std::uint32_t z = 0; z < 5; ++z)
    for (std::uint32_t y = 0; y < 6; ++y)
      for (std::uint32_t x = 0; x < 7; ++x) codes.insert(morton_encode(x, y, z));
  EXPECT_EQ(codes.size(), 5u * 6u * 7u);
}

TEST(BalancedRanges, ContiguousSizesDifferByAtMostOneAndOwnerAgrees) {
  for (std::int64_t count : {0, 1, 5, 7, 64, 100}) {
    for (int parts : {1, 2, 3, 4, 7, 128}) {
      EXPECT_EQ(balanced_range_begin(count, parts, 0), 0);
      EXPECT_EQ(balanced_range_begin(count, parts, parts), count);
      std::int64_t smallest = count, largest = 0;
      for (int p = 0; p < parts; ++p) {
        const std::int64_t begin = balanced_range_begin(count, parts, p);
        const std::int64_t end = balanced_range_begin(count, parts, p + 1);
        ASSERT_LE(begin, end);
        smallest = std::min(smallest, end - begin);
        largest = std::max(largest, end - begin);
        for (std::int64_t i = begin; i < end; ++i) {
          EXPECT_EQ(balanced_range_owner(count, parts, i), p) << count << " " << parts << " " << i;
        }
      }
      EXPECT_LE(largest - smallest, 1) << count << " items over " << parts;
    }
  }
}

}  // namespace
}  // namespace tessera
