// DirectReadQueue: the asynchronous direct reads hand out a file range's pieces in order,
// byte for byte, never overwriting a piece the consumer still holds (pieces off page
// boundaries, more pieces than slots); a short file is an error, not a hang; a consumer
// that stops early leaves nothing in flight behind the destructor (no MPI, no HDF5).
#include "io/direct_read_queue.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace tessera::detail {
namespace {

namespace fs = std::filesystem;

// A scratch file of `bytes` bytes whose byte i is a function of i.
struct PatternFile {
  fs::path path;
  explicit PatternFile(std::size_t bytes) {
    std::string templ = (fs::temp_directory_path() / "tessera_pieces_XXXXXX").string();
    const int fd = mkstemp(templ.data());
    ::close(fd);
    path = templ;
    std::vector<unsigned char> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = pattern(i);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(bytes));
  }
  ~PatternFile() { fs::remove(path); }
  static unsigned char pattern(std::size_t i) {
    return static_cast<unsigned char>(i * 131 + i / 7);
  }
};

struct FreeRing {
  void operator()(unsigned char* p) const { std::free(p); }
};

std::unique_ptr<unsigned char, FreeRing> ring_for(std::size_t piece_bytes, int depth) {
  return std::unique_ptr<unsigned char, FreeRing>(static_cast<unsigned char*>(
      std::aligned_alloc(4096, DirectReadQueue::slot_bytes(piece_bytes) * depth)));
}

// A kernel AIO context for the test's queues, closed at the end.
struct AioContext {
  std::uint64_t id = DirectReadQueue::open_context();
  ~AioContext() { DirectReadQueue::close_context(id); }
};

// Reads [offset, offset + bytes) through a queue of `depth` slots on `context` and checks
// every byte.
void expect_pattern_in_order(const PatternFile& file, std::int64_t offset, std::int64_t bytes,
                             std::size_t piece, int depth, std::uint64_t context) {
  RawDataReader reader(file.path.string());
  ASSERT_TRUE(reader.valid());
  if (!reader.open_direct()) GTEST_SKIP() << "the file system refuses O_DIRECT";
  if (context == 0) GTEST_SKIP() << "the kernel offers no asynchronous I/O context";
  auto ring = ring_for(piece, depth);
  DirectReadQueue queue(context, reader, offset, bytes, piece, ring.get(), depth);
  std::int64_t at = 0;
  while (at < bytes) {
    const DirectReadQueue::Piece got = queue.next();
    ASSERT_TRUE(got.error.empty()) << got.error;
    ASSERT_EQ(got.bytes, static_cast<std::size_t>(std::min<std::int64_t>(piece, bytes - at)));
    for (std::size_t i = 0; i < got.bytes; ++i)
      ASSERT_EQ(got.data[i], PatternFile::pattern(static_cast<std::size_t>(offset + at) + i))
          << "byte " << at + static_cast<std::int64_t>(i);
    at += static_cast<std::int64_t>(got.bytes);
  }
  EXPECT_EQ(at, bytes);
}

TEST(DirectReadQueue, HandsOutEveryPieceOfTheRangeInOrderByteForByte) {
  // A range that starts off a page and ends with a short piece inside the file; each piece
  // is read as its enclosing page-aligned range, 3 slots for 71 pieces.
  PatternFile file(1 << 20);
  AioContext context;
  expect_pattern_in_order(file, 123, 700001, 10000, 3, context.id);
}

TEST(DirectReadQueue, ReadsUpToTheEndOfTheFileWithManyPiecesInFlight) {
  // The last piece's aligned range ends past the file's end: a short transfer, not an error.
  const std::size_t file_bytes = 3 << 20;
  PatternFile file(file_bytes);
  AioContext context;
  expect_pattern_in_order(file, 5000, static_cast<std::int64_t>(file_bytes) - 5000, 300000, 8,
                          context.id);
}

TEST(DirectReadQueue, OneSlotReadsPieceAfterPiece) {
  PatternFile file(200000);
  AioContext context;
  expect_pattern_in_order(file, 4096, 150000, 8192, 1, context.id);
}

TEST(RawDataReader, ResidentFractionSeesThePageCache) {
  PatternFile file(1 << 20);
  RawDataReader reader(file.path.string());
  std::vector<unsigned char> all(1 << 20);
  ASSERT_TRUE(reader.read(0, all.data(), all.size()).empty());
  EXPECT_GT(reader.resident_fraction(0, 1 << 20), 0.99);  // just read through the cache
}

TEST(DirectReadQueue, AFileShorterThanTheRangeIsAnErrorNotAHang) {
  PatternFile file(50000);
  RawDataReader reader(file.path.string());
  if (!reader.open_direct()) GTEST_SKIP() << "the file system refuses O_DIRECT";
  AioContext context;
  if (context.id == 0) GTEST_SKIP() << "the kernel offers no asynchronous I/O context";
  auto ring = ring_for(16384, 2);
  DirectReadQueue queue(context.id, reader, 0, 100000, 16384, ring.get(), 2);
  std::string error;
  for (int i = 0; i < 7 && error.empty(); ++i) error = queue.next().error;
  EXPECT_EQ(error, "end of file");
}

TEST(DirectReadQueue, AConsumerThatStopsEarlyLeavesNothingInFlight) {
  PatternFile file(1 << 20);
  RawDataReader reader(file.path.string());
  if (!reader.open_direct()) GTEST_SKIP() << "the file system refuses O_DIRECT";
  AioContext context;
  if (context.id == 0) GTEST_SKIP() << "the kernel offers no asynchronous I/O context";
  const std::size_t slot = DirectReadQueue::slot_bytes(4096);
  auto ring = ring_for(4096, 8);
  {
    DirectReadQueue queue(context.id, reader, 0, 1 << 20, 4096, ring.get(), 8);
    EXPECT_TRUE(queue.next().error.empty());
  }  // seven requests may still be in flight: the destructor waits for them
  // The ring is ours again: nothing writes into it after the destructor.
  std::memset(ring.get(), 0xab, slot * 8);
  usleep(2000);
  EXPECT_EQ(ring.get()[slot * 7], 0xab);
  // And no late event of the first queue reaches the next one on the same context.
  expect_pattern_in_order(file, 8192, 500000, 4096, 8, context.id);
}

}  // namespace
}  // namespace tessera::detail
