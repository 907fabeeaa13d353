// The per-thread event buffer: appends across chunk boundaries keep order and never
// move earlier elements.
#include "record/chunked_buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tessera::obs {
namespace {

TEST(ChunkedBuffer, StartsEmptyWithOneChunkPreallocated) {
  ChunkedBuffer<int, 8> buffer;
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.chunk_count(), 1u);
}

TEST(ChunkedBuffer, KeepsAppendOrderAcrossChunkBoundaries) {
  ChunkedBuffer<std::int64_t, 8> buffer;
  for (std::int64_t i = 0; i < 8 * 5 + 3; ++i) buffer.push_back(i * i);
  EXPECT_EQ(buffer.size(), 43u);
  EXPECT_EQ(buffer.chunk_count(), 6u);
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    ASSERT_EQ(buffer[i], static_cast<std::int64_t>(i * i));
  }
  std::vector<std::int64_t> seen;
  buffer.for_each([&](std::int64_t v) { seen.push_back(v); });
  ASSERT_EQ(seen.size(), 43u);
  for (std::size_t i = 0; i < seen.size(); ++i)
    ASSERT_EQ(seen[i], static_cast<std::int64_t>(i * i));
  EXPECT_EQ(buffer.back(), 42 * 42);
}

TEST(ChunkedBuffer, ExactlyFullChunkDoesNotAllocateTheNextOne) {
  ChunkedBuffer<int, 4> buffer;
  for (int i = 0; i < 4; ++i) buffer.push_back(i);
  EXPECT_EQ(buffer.chunk_count(), 1u);
  buffer.push_back(4);
  EXPECT_EQ(buffer.chunk_count(), 2u);
  int count = 0;
  buffer.for_each([&](int v) { EXPECT_EQ(v, count++); });
  EXPECT_EQ(count, 5);
}

TEST(ChunkedBuffer, AppendsNeverMoveEarlierElements) {
  ChunkedBuffer<int, 4> buffer;
  buffer.push_back(1);
  const int* first = &buffer[0];
  for (int i = 0; i < 100; ++i) buffer.push_back(i);
  EXPECT_EQ(&buffer[0], first);
  EXPECT_EQ(*first, 1);
}

TEST(ChunkedBuffer, PopulatedChunksArePageAlignedAndKeepTheirElements) {
  constexpr std::size_t kPerChunk = detail::kPopulatedChunkBytes / sizeof(std::int64_t);
  ChunkedBuffer<std::int64_t, kPerChunk> buffer;
  const std::size_t n = kPerChunk + 10;
  for (std::size_t i = 0; i < n; ++i) buffer.push_back(static_cast<std::int64_t>(i) * 3);
  EXPECT_EQ(buffer.chunk_count(), 2u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&buffer[0]) % 4096, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&buffer[kPerChunk]) % 4096, 0u);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(buffer[i], static_cast<std::int64_t>(i) * 3);
}

}  // namespace
}  // namespace tessera::obs
