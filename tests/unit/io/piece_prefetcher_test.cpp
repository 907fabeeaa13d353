// PiecePrefetcher: the read thread hands out a file range's pieces in order, byte for byte,
// never overwriting a piece the consumer still holds; a short file is an error, not a hang;
// a consumer that stops early does not block the destructor (no MPI, no HDF5).
#include "io/piece_prefetcher.hpp"

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
      std::aligned_alloc(4096, PiecePrefetcher::slot_bytes(piece_bytes) * depth)));
}

TEST(PiecePrefetcher, HandsOutEveryPieceOfTheRangeInOrderByteForByte) {
  // A range that starts off a page and ends with a short piece; the consumer holds each
  // piece while checking it, so the thread may refill only the other slots.
  const std::size_t file_bytes = 1 << 20, piece = 10000;
  const std::int64_t offset = 123, bytes = 700001;
  PatternFile file(file_bytes);
  RawDataReader reader(file.path.string());
  ASSERT_TRUE(reader.valid());
  auto ring = ring_for(piece, 3);
  PiecePrefetcher prefetch(reader, offset, bytes, piece, ring.get(), 3, 1, false);
  std::int64_t at = 0;
  while (at < bytes) {
    const PiecePrefetcher::Piece got = prefetch.next();
    ASSERT_TRUE(got.error.empty()) << got.error;
    ASSERT_EQ(got.bytes, static_cast<std::size_t>(std::min<std::int64_t>(piece, bytes - at)));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(got.data) % 4096, 0U);
    for (std::size_t i = 0; i < got.bytes; ++i)
      ASSERT_EQ(got.data[i], PatternFile::pattern(static_cast<std::size_t>(offset + at) + i))
          << "byte " << at + static_cast<std::int64_t>(i);
    at += static_cast<std::int64_t>(got.bytes);
  }
  EXPECT_EQ(at, bytes);
}

TEST(PiecePrefetcher, DirectReadsByTwoThreadsHandOutTheSameBytesInOrder) {
  // Pieces that start and end off a page: each is read as its enclosing aligned range,
  // the last one past the end of the file.
  const std::size_t file_bytes = 3 << 20, piece = 300000;
  const std::int64_t offset = 5000, bytes = static_cast<std::int64_t>(file_bytes) - 5000;
  PatternFile file(file_bytes);
  RawDataReader reader(file.path.string());
  if (!reader.open_direct()) GTEST_SKIP() << "the file system refuses O_DIRECT";
  auto ring = ring_for(piece, 4);
  PiecePrefetcher prefetch(reader, offset, bytes, piece, ring.get(), 4, 2, true);
  std::int64_t at = 0;
  while (at < bytes) {
    const PiecePrefetcher::Piece got = prefetch.next();
    ASSERT_TRUE(got.error.empty()) << got.error;
    ASSERT_EQ(got.bytes, static_cast<std::size_t>(std::min<std::int64_t>(piece, bytes - at)));
    for (std::size_t i = 0; i < got.bytes; ++i)
      ASSERT_EQ(got.data[i], PatternFile::pattern(static_cast<std::size_t>(offset + at) + i))
          << "byte " << at + static_cast<std::int64_t>(i);
    at += static_cast<std::int64_t>(got.bytes);
  }
}

TEST(RawDataReader, ResidentFractionSeesThePageCache) {
  PatternFile file(1 << 20);
  RawDataReader reader(file.path.string());
  std::vector<unsigned char> all(1 << 20);
  ASSERT_TRUE(reader.read(0, all.data(), all.size()).empty());
  EXPECT_GT(reader.resident_fraction(0, 1 << 20), 0.99);  // just read through the cache
}

TEST(PiecePrefetcher, AFileShorterThanTheRangeIsAnErrorNotAHang) {
  PatternFile file(50000);
  RawDataReader reader(file.path.string());
  auto ring = ring_for(16384, 2);
  PiecePrefetcher prefetch(reader, 0, 100000, 16384, ring.get(), 2, 2, false);
  std::string error;
  for (int i = 0; i < 7 && error.empty(); ++i) error = prefetch.next().error;
  EXPECT_EQ(error, "end of file");
}

TEST(PiecePrefetcher, AConsumerThatStopsEarlyLetsTheThreadEnd) {
  PatternFile file(1 << 20);
  RawDataReader reader(file.path.string());
  auto ring = ring_for(4096, 2);
  {
    PiecePrefetcher prefetch(reader, 0, 1 << 20, 4096, ring.get(), 2, 2, false);
    EXPECT_TRUE(prefetch.next().error.empty());
  }  // the thread waits for a free slot that never comes: the destructor must stop it
  SUCCEED();
}

}  // namespace
}  // namespace tessera::detail
