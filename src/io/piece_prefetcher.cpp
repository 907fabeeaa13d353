#include "io/piece_prefetcher.hpp"

#include <algorithm>
#include <utility>

namespace tessera::detail {

PiecePrefetcher::PiecePrefetcher(const RawDataReader& file, std::int64_t offset, std::int64_t bytes,
                                 std::size_t piece_bytes, unsigned char* ring, int depth)
    : file_(file),
      offset_(offset),
      bytes_(bytes),
      piece_bytes_(piece_bytes),
      slot_bytes_(slot_bytes(piece_bytes)),
      ring_(ring),
      depth_(depth),
      pieces_((bytes + static_cast<std::int64_t>(piece_bytes) - 1) /
              static_cast<std::int64_t>(piece_bytes)),
      thread_([this] { run(); }) {}

PiecePrefetcher::~PiecePrefetcher() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void PiecePrefetcher::run() {
  const auto piece = static_cast<std::int64_t>(piece_bytes_);
  for (std::int64_t i = 0; i < pieces_; ++i) {
    {
      std::unique_lock lock(mutex_);
      // The slot of piece i held piece i - depth, which the consumer must have released.
      changed_.wait(lock, [&] { return stop_ || i - released_ < depth_; });
      if (stop_) return;
    }
    const std::int64_t at = i * piece;
    const auto n = static_cast<std::size_t>(std::min(piece, bytes_ - at));
    std::string failed = file_.read(offset_ + at, slot(i), n);
    const bool ok = failed.empty();
    {
      const std::lock_guard lock(mutex_);
      if (ok)
        read_ = i + 1;
      else
        error_ = std::move(failed);
    }
    changed_.notify_all();
    if (!ok) return;
  }
}

PiecePrefetcher::Piece PiecePrefetcher::next() {
  const auto piece = static_cast<std::int64_t>(piece_bytes_);
  const std::int64_t i = taken_++;
  std::unique_lock lock(mutex_);
  released_ = i;  // every piece before i
  changed_.notify_all();
  changed_.wait(lock, [&] { return read_ > i || !error_.empty(); });
  if (read_ <= i) return {nullptr, 0, error_};
  const std::int64_t at = i * piece;
  return {slot(i), static_cast<std::size_t>(std::min(piece, bytes_ - at)), {}};
}

}  // namespace tessera::detail
