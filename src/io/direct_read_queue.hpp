#pragma once
// DirectReadQueue: reads a byte range of a checkpoint file from the disk with O_DIRECT,
// piece by piece into a ring of buffers, keeping up to `depth` pieces in flight through
// Linux's native asynchronous I/O (io_submit), and hands the pieces to the calling thread
// in file order. Why many requests in flight: on this project's virtual disk a read's
// bandwidth grows with the requests in flight (figures: docs/checkpoint.md, Performance,
// "read, cold"). Why not read threads: each request in flight would need a thread to
// block in pread, and with two ranks on two cores the threads wait to be scheduled; here
// the kernel holds the requests and the calling thread only submits and collects them
// between its checks. No MPI and no HDF5 call. The kernel context outlives the queue
// (open_context/close_context): closing one waits for a grace period of the kernel, once
// per reader, not per field.

#include <linux/aio_abi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/raw_data_reader.hpp"

namespace tessera::detail {

class DirectReadQueue {
 public:
  /// The most pieces a queue keeps in flight.
  static constexpr int kMaxDepth = 8;
  /// A kernel asynchronous I/O context for kMaxDepth requests; 0 if the kernel offers none.
  static std::uint64_t open_context();
  /// Releases a context of open_context (no queue may be using it); waits for the kernel.
  static void close_context(std::uint64_t context);
  /// Bytes between the starts of two buffers of the ring: room for a piece and the
  /// alignment a direct read of it needs on either side, a whole number of pages.
  static std::size_t slot_bytes(std::size_t piece_bytes) {
    return (piece_bytes + 2 * kPage + kPage - 1) / kPage * kPage;
  }
  /// Starts reading [offset, offset + bytes) of `file` (open_direct must have succeeded)
  /// in pieces of `piece_bytes` (the last one shorter), each as its page-aligned enclosing
  /// range, into the `depth` (at most kMaxDepth) page-aligned buffers at `ring` (slot s at
  /// ring + s * slot_bytes(piece_bytes)), at most `depth` pieces ahead of the consumer,
  /// through `context` (of open_context, used by no other queue meanwhile).
  DirectReadQueue(std::uint64_t context, const RawDataReader& file, std::int64_t offset,
                  std::int64_t bytes, std::size_t piece_bytes, unsigned char* ring, int depth);
  /// Waits for the requests still in flight (they write into the ring), then ends.
  ~DirectReadQueue();
  DirectReadQueue(const DirectReadQueue&) = delete;
  DirectReadQueue& operator=(const DirectReadQueue&) = delete;

  struct Piece {
    const unsigned char* data = nullptr;
    std::size_t bytes = 0;
    std::string error;  // what failed (errno's text, or "end of file"); data is null then
  };
  /// The next piece in file order, waiting for it; releases the previous one, whose
  /// buffer is then refilled with the piece `depth` further on. Call at most once per
  /// piece, from one thread.
  Piece next();

 private:
  static constexpr std::size_t kPage = 4096;
  struct Slot {
    iocb request{};
    std::int64_t piece = -1;  // the piece it holds or is reading
    bool done = false;        // the read of `piece` has ended
    std::size_t skip = 0;     // bytes before the piece (the page-aligned start)
    std::size_t wanted = 0;   // bytes from the aligned start to the piece's end
    std::string error;        // what failed
  };
  void submit(std::int64_t piece);
  // Records a finished request: `result` bytes read or -errno.
  void complete(Slot& slot, long long result);
  unsigned char* buffer(std::int64_t piece) const {
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
  const aio_context_t context_;
  std::vector<Slot> slots_;
  std::vector<io_event> events_;
  std::int64_t submitted_ = 0;  // pieces submitted so far
  std::int64_t in_flight_ = 0;  // requests the kernel has not yet returned
  std::int64_t taken_ = 0;      // pieces handed to the consumer
};

}  // namespace tessera::detail
