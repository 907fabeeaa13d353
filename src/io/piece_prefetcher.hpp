#pragma once
// PiecePrefetcher: a thread that reads a byte range of a checkpoint file piece by piece
// (RawDataReader's pread) into a ring of buffers, ahead of the main thread, which verifies
// and unpacks each piece. Why: reading, verifying and unpacking in turn on one thread left
// the disk without a request while the piece was verified and unpacked, and the CPU idle
// while the next piece came from the disk; with the reading on its own thread the two
// overlap. The thread makes no MPI and no HDF5 call (MPI is FUNNELED, HDF5 not
// thread-safe), as the writer's I/O thread.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "io/raw_data_reader.hpp"

namespace tessera::detail {

class PiecePrefetcher {
 public:
  /// Bytes between the starts of two buffers of the ring: `piece_bytes` rounded up to a
  /// page, so that every buffer is page-aligned if the ring is (see CheckpointReader).
  static std::size_t slot_bytes(std::size_t piece_bytes) {
    return (piece_bytes + 4095) / 4096 * 4096;
  }
  /// Starts the thread: it reads [offset, offset + bytes) of `file` in pieces of
  /// `piece_bytes` (the last one shorter) into the `depth` buffers at `ring` (slot s at
  /// ring + s * slot_bytes(piece_bytes)), at most `depth` pieces ahead of the consumer.
  /// `file` and `ring` must outlive the prefetcher.
  PiecePrefetcher(const RawDataReader& file, std::int64_t offset, std::int64_t bytes,
                  std::size_t piece_bytes, unsigned char* ring, int depth);
  /// Stops the thread (after the piece it is reading) and joins it.
  ~PiecePrefetcher();
  PiecePrefetcher(const PiecePrefetcher&) = delete;
  PiecePrefetcher& operator=(const PiecePrefetcher&) = delete;

  struct Piece {
    const unsigned char* data = nullptr;
    std::size_t bytes = 0;
    std::string error;  // what failed (RawDataReader::read's text); data is null then
  };
  /// The next piece in file order, waiting for it; releases the previous one, whose
  /// buffer the thread may then refill. Call at most once per piece. One consumer thread.
  Piece next();

 private:
  void run();
  unsigned char* slot(std::int64_t piece) const {
    return ring_ + static_cast<std::size_t>(piece % depth_) * slot_bytes_;
  }

  const RawDataReader& file_;
  const std::int64_t offset_;
  const std::int64_t bytes_;
  const std::size_t piece_bytes_;
  const std::size_t slot_bytes_;
  unsigned char* const ring_;
  const std::int64_t depth_;
  const std::int64_t pieces_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::int64_t read_ = 0;      // pieces the thread has read (guarded by mutex_)
  std::int64_t released_ = 0;  // pieces the consumer is done with (guarded by mutex_)
  std::int64_t taken_ = 0;     // pieces handed to the consumer (consumer only)
  std::string error_;          // the thread's failure, if any (guarded by mutex_)
  bool stop_ = false;          // the destructor asks the thread to end (guarded by mutex_)
  std::thread thread_;
};

}  // namespace tessera::detail
