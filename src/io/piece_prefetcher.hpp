#pragma once
// PiecePrefetcher: threads that read a byte range of a checkpoint file piece by piece
// (RawDataReader) into a ring of buffers, ahead of the main thread, which verifies and
// unpacks each piece. Why: reading, verifying and unpacking in turn on one thread left the
// disk without a request while a piece was verified and unpacked, and the CPU idle while
// the next piece came from the disk; with the reading on threads of its own the two
// overlap. The threads make no MPI and no HDF5 call (MPI is FUNNELED, HDF5 not
// thread-safe), as the writer's I/O thread.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/raw_data_reader.hpp"

namespace tessera::detail {

class PiecePrefetcher {
 public:
  /// Bytes between the starts of two buffers of the ring: room for a piece and the
  /// alignment a direct read of it needs on either side, a whole number of pages, so that
  /// every buffer is page-aligned if the ring is.
  static std::size_t slot_bytes(std::size_t piece_bytes) {
    return (piece_bytes + 2 * kPage + kPage - 1) / kPage * kPage;
  }
  /// Starts `threads` threads that read [offset, offset + bytes) of `file` in pieces of
  /// `piece_bytes` (the last one shorter) into the `depth` buffers at `ring` (slot s at
  /// ring + s * slot_bytes(piece_bytes)), at most `depth` pieces ahead of the consumer;
  /// with `direct`, through file.read_direct (open_direct must have succeeded), each piece
  /// as its page-aligned enclosing range. `file` and `ring` must outlive the prefetcher.
  PiecePrefetcher(const RawDataReader& file, std::int64_t offset, std::int64_t bytes,
                  std::size_t piece_bytes, unsigned char* ring, int depth, int threads,
                  bool direct);
  /// Stops the threads (after the pieces they are reading) and joins them.
  ~PiecePrefetcher();
  PiecePrefetcher(const PiecePrefetcher&) = delete;
  PiecePrefetcher& operator=(const PiecePrefetcher&) = delete;

  struct Piece {
    const unsigned char* data = nullptr;
    std::size_t bytes = 0;
    std::string error;  // what failed (RawDataReader's text); data is null then
  };
  /// The next piece in file order, waiting for it; releases the previous one, whose
  /// buffer a thread may then refill. Call at most once per piece. One consumer thread.
  Piece next();

 private:
  static constexpr std::size_t kPage = 4096;
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
  const bool direct_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // All guarded by mutex_ but taken_ (consumer only).
  std::int64_t claimed_ = 0;         // pieces a thread has started reading
  std::int64_t released_ = 0;        // pieces the consumer is done with
  std::vector<std::int64_t> ready_;  // per slot: the piece it holds, read (-1: none)
  std::vector<std::size_t> skip_;    // per slot: bytes before the piece (direct reads)
  std::int64_t failed_piece_ = -1;   // the first piece whose read failed
  std::string error_;                // what failed for it
  bool stop_ = false;                // the destructor asks the threads to end
  std::int64_t taken_ = 0;           // pieces handed to the consumer
  std::vector<std::thread> threads_;
};

}  // namespace tessera::detail
