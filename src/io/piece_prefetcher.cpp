#include "io/piece_prefetcher.hpp"

#include <algorithm>
#include <utility>

namespace tessera::detail {

PiecePrefetcher::PiecePrefetcher(const RawDataReader& file, std::int64_t offset, std::int64_t bytes,
                                 std::size_t piece_bytes, unsigned char* ring, int depth,
                                 int threads, bool direct)
    : file_(file),
      offset_(offset),
      bytes_(bytes),
      piece_bytes_(piece_bytes),
      slot_bytes_(slot_bytes(piece_bytes)),
      ring_(ring),
      depth_(depth),
      pieces_((bytes + static_cast<std::int64_t>(piece_bytes) - 1) /
              static_cast<std::int64_t>(piece_bytes)),
      direct_(direct),
      ready_(static_cast<std::size_t>(depth), -1),
      skip_(static_cast<std::size_t>(depth), 0) {
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { run(); });
}

PiecePrefetcher::~PiecePrefetcher() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void PiecePrefetcher::run() {
  const auto piece = static_cast<std::int64_t>(piece_bytes_);
  const auto page = static_cast<std::int64_t>(kPage);
  for (;;) {
    std::int64_t i = 0;
    {
      std::unique_lock lock(mutex_);
      // The slot of piece i held piece i - depth, which the consumer must have released.
      changed_.wait(lock, [&] { return stop_ || claimed_ - released_ < depth_; });
      if (stop_ || claimed_ >= pieces_ || failed_piece_ >= 0) return;
      i = claimed_++;
    }
    const std::int64_t begin = offset_ + i * piece;
    const std::int64_t end = std::min(begin + piece, offset_ + bytes_);
    std::size_t skip = 0;
    std::string failed;
    if (direct_) {
      // The enclosing page-aligned range; it may end past the file's end (a short read).
      const std::int64_t aligned = begin / page * page;
      skip = static_cast<std::size_t>(begin - aligned);
      failed = file_.read_direct(aligned, slot(i),
                                 static_cast<std::size_t>((end - aligned + page - 1) / page * page),
                                 static_cast<std::size_t>(end - aligned));
    } else {
      failed = file_.read(begin, slot(i), static_cast<std::size_t>(end - begin));
    }
    {
      const std::lock_guard lock(mutex_);
      const auto s = static_cast<std::size_t>(i % depth_);
      if (failed.empty()) {
        ready_[s] = i;
        skip_[s] = skip;
      } else if (failed_piece_ < 0 || i < failed_piece_) {
        failed_piece_ = i;
        error_ = std::move(failed);
      }
    }
    changed_.notify_all();
  }
}

PiecePrefetcher::Piece PiecePrefetcher::next() {
  const auto piece = static_cast<std::int64_t>(piece_bytes_);
  const std::int64_t i = taken_++;
  const auto s = static_cast<std::size_t>(i % depth_);
  std::unique_lock lock(mutex_);
  released_ = i;  // every piece before i
  changed_.notify_all();
  changed_.wait(lock, [&] { return ready_[s] == i || (failed_piece_ >= 0 && failed_piece_ <= i); });
  if (ready_[s] != i) return {nullptr, 0, error_};
  const std::int64_t at = i * piece;
  return {slot(i) + skip_[s], static_cast<std::size_t>(std::min(piece, bytes_ - at)), {}};
}

}  // namespace tessera::detail
