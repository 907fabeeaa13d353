#pragma once
// Append-only event storage for one writer thread: elements live in fixed-size chunks,
// so an append never moves earlier elements, never takes a lock, and allocates only once
// per chunk (the first chunk is allocated up front).

#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

namespace tessera::obs {

/// Single writer. Readers may look only after the writer is done and a happens-before
/// edge (a join, a wait on the runtime) orders them after its last append.
template <class T, std::size_t kChunkSize = 4096>
class ChunkedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "events are copied bytewise");
  static_assert(kChunkSize > 0);

 public:
  ChunkedBuffer() { add_chunk(); }

  void push_back(const T& value) {
    if (fill_ == kChunkSize) [[unlikely]] {
      add_chunk();
    }
    current_[fill_++] = value;
  }
  /// The most recently appended element; the buffer must not be empty.
  T& back() { return current_[fill_ - 1]; }

  std::size_t size() const { return (chunks_.size() - 1) * kChunkSize + fill_; }
  bool empty() const { return size() == 0; }
  const T& operator[](std::size_t i) const { return chunks_[i / kChunkSize][i % kChunkSize]; }
  T& operator[](std::size_t i) { return chunks_[i / kChunkSize][i % kChunkSize]; }
  /// Number of chunks allocated so far (1 + one per kChunkSize appends beyond the first).
  std::size_t chunk_count() const { return chunks_.size(); }

  /// Calls f(element) for every element in append order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const std::size_t n = c + 1 == chunks_.size() ? fill_ : kChunkSize;
      for (std::size_t i = 0; i < n; ++i) f(chunks_[c][i]);
    }
  }

 private:
  void add_chunk() {
    chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunkSize));
    current_ = chunks_.back().get();
    fill_ = 0;
  }

  std::vector<std::unique_ptr<T[]>> chunks_;
  T* current_ = nullptr;
  std::size_t fill_ = 0;
};

}  // namespace tessera::obs
