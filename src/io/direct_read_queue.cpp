#include "io/direct_read_queue.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tessera::detail {

// glibc has no wrapper for the kernel's AIO calls (its aio_* functions are threads).
std::uint64_t DirectReadQueue::open_context() {
  aio_context_t context = 0;
  if (::syscall(SYS_io_setup, static_cast<unsigned>(kMaxDepth), &context) != 0) return 0;
  return context;
}

void DirectReadQueue::close_context(std::uint64_t context) {
  if (context != 0) ::syscall(SYS_io_destroy, static_cast<aio_context_t>(context));
}

DirectReadQueue::DirectReadQueue(std::uint64_t context, const RawDataReader& file,
                                 std::int64_t offset, std::int64_t bytes, std::size_t piece_bytes,
                                 unsigned char* ring, int depth)
    : file_(file),
      offset_(offset),
      bytes_(bytes),
      piece_bytes_(piece_bytes),
      slot_bytes_(slot_bytes(piece_bytes)),
      ring_(ring),
      depth_(depth),
      pieces_((bytes + static_cast<std::int64_t>(piece_bytes) - 1) /
              static_cast<std::int64_t>(piece_bytes)),
      context_(static_cast<aio_context_t>(context)),
      slots_(static_cast<std::size_t>(depth)),
      events_(static_cast<std::size_t>(depth)) {
  while (submitted_ < std::min(depth_, pieces_)) submit(submitted_++);
}

DirectReadQueue::~DirectReadQueue() {
  // A consumer that stopped early (an error) leaves requests that still write into the
  // ring, and their events would reach the context's next queue.
  while (in_flight_ > 0) {
    const long n = ::syscall(SYS_io_getevents, context_, 1L, static_cast<long>(events_.size()),
                             events_.data(), nullptr);
    if (n < 0 && errno != EINTR) break;
    if (n > 0) in_flight_ -= n;
  }
}

void DirectReadQueue::submit(std::int64_t piece) {
  const auto page = static_cast<std::int64_t>(kPage);
  const std::int64_t begin = offset_ + piece * static_cast<std::int64_t>(piece_bytes_);
  const std::int64_t end =
      std::min(begin + static_cast<std::int64_t>(piece_bytes_), offset_ + bytes_);
  // The enclosing page-aligned range; it may end past the file's end (a short read).
  const std::int64_t aligned = begin / page * page;
  Slot& slot = slots_[static_cast<std::size_t>(piece % depth_)];
  slot.piece = piece;
  slot.done = false;
  slot.skip = static_cast<std::size_t>(begin - aligned);
  slot.wanted = static_cast<std::size_t>(end - aligned);
  slot.error.clear();
  slot.request = iocb{};
  slot.request.aio_fildes = static_cast<std::uint32_t>(file_.direct_descriptor());
  slot.request.aio_lio_opcode = IOCB_CMD_PREAD;
  slot.request.aio_buf = reinterpret_cast<std::uint64_t>(buffer(piece));
  slot.request.aio_nbytes = static_cast<std::uint64_t>((end - aligned + page - 1) / page * page);
  slot.request.aio_offset = aligned;
  slot.request.aio_data = static_cast<std::uint64_t>(piece);
  iocb* request = &slot.request;
  if (::syscall(SYS_io_submit, context_, 1L, &request) == 1) {
    ++in_flight_;
    return;
  }
  // The kernel refused the request (EAGAIN: too many in flight system-wide): read it now.
  slot.error = file_.read_direct(aligned, buffer(piece), slot.request.aio_nbytes, slot.wanted);
  slot.done = true;
}

void DirectReadQueue::complete(Slot& slot, long long result) {
  slot.done = true;
  if (result < 0) {
    slot.error = std::strerror(static_cast<int>(-result));
    return;
  }
  const auto got = static_cast<std::size_t>(result);
  if (got >= slot.wanted) return;
  // A short transfer: at the end of the file (then too short only if truncated), or one
  // the kernel split; read the rest synchronously (read_direct says which).
  if (got % kPage != 0) {
    slot.error = "end of file";
    return;
  }
  slot.error =
      file_.read_direct(static_cast<std::int64_t>(slot.request.aio_offset) + result,
                        reinterpret_cast<unsigned char*>(slot.request.aio_buf) + got,
                        static_cast<std::size_t>(slot.request.aio_nbytes) - got, slot.wanted - got);
}

DirectReadQueue::Piece DirectReadQueue::next() {
  const std::int64_t i = taken_++;
  // Piece i - 1 is released: its buffer takes the piece depth further on.
  if (i > 0 && submitted_ < pieces_) submit(submitted_++);
  Slot& slot = slots_[static_cast<std::size_t>(i % depth_)];
  while (!(slot.piece == i && slot.done)) {
    if (in_flight_ == 0) return {nullptr, 0, "piece not submitted"};
    const long n = ::syscall(SYS_io_getevents, context_, 1L, static_cast<long>(events_.size()),
                             events_.data(), nullptr);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {nullptr, 0, std::strerror(errno)};
    for (long e = 0; e < n; ++e) {
      const auto piece = static_cast<std::int64_t>(events_[static_cast<std::size_t>(e)].data);
      --in_flight_;
      complete(slots_[static_cast<std::size_t>(piece % depth_)],
               events_[static_cast<std::size_t>(e)].res);
    }
  }
  if (!slot.error.empty()) return {nullptr, 0, slot.error};
  const std::int64_t at = i * static_cast<std::int64_t>(piece_bytes_);
  return {buffer(i) + slot.skip,
          static_cast<std::size_t>(std::min(static_cast<std::int64_t>(piece_bytes_), bytes_ - at)),
          {}};
}

}  // namespace tessera::detail
