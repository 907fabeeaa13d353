#pragma once
// Append-only event storage for one writer thread: elements live in fixed-size chunks,
// so an append never moves earlier elements, never takes a lock, and allocates only once
// per chunk (the first chunk is allocated up front). Chunks of 2 MiB or more are mapped
// with their pages populated at once (mmap MAP_POPULATE): one system call per 2 MiB
// instead of a page fault on the writing thread every 4 KiB. (Transparent huge pages
// were tried and dropped: with "defrag=madvise" a fault may stall in compaction.)

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace tessera::obs {

namespace detail {
inline constexpr std::size_t kPopulatedChunkBytes = std::size_t{2} << 20;
/// Uninitialized memory for one chunk, page-aligned and already faulted in when
/// `bytes` >= kPopulatedChunkBytes. Throws std::bad_alloc.
void* allocate_chunk(std::size_t bytes);
/// Returns a chunk from allocate_chunk(bytes).
struct FreeChunk {
  std::size_t bytes;
  void operator()(void* p) const;
};
}  // namespace detail

/// Single writer. Readers may look only after the writer is done and a happens-before
/// edge (a join, a wait on the runtime) orders them after its last append. T must be
/// trivially copyable and trivially destructible (events are raw bytes).
template <class T, std::size_t kChunkSize = 4096>
class ChunkedBuffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "events are copied bytewise");
  static_assert(kChunkSize > 0);

 public:
  ChunkedBuffer() { add_chunk(); }

  void push_back(const T& value) {
    if (fill_ == kChunkSize) [[unlikely]] {
      add_chunk();
    }
    // Chunk memory is raw storage: construct in place.
    ::new (static_cast<void*>(current_ + fill_)) T(value);
    ++fill_;
  }
  /// The most recently appended element; the buffer must not be empty.
  T& back() { return current_[fill_ - 1]; }

  std::size_t size() const { return (chunks_.size() - 1) * kChunkSize + fill_; }
  bool empty() const { return size() == 0; }
  const T& operator[](std::size_t i) const { return chunk(i / kChunkSize)[i % kChunkSize]; }
  T& operator[](std::size_t i) { return chunk(i / kChunkSize)[i % kChunkSize]; }
  /// Number of chunks allocated so far (1 + one per kChunkSize appends beyond the first).
  std::size_t chunk_count() const { return chunks_.size(); }

  /// Calls f(element) for every element in append order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const std::size_t n = c + 1 == chunks_.size() ? fill_ : kChunkSize;
      const T* items = chunk(c);
      for (std::size_t i = 0; i < n; ++i) f(items[i]);
    }
  }

 private:
  T* chunk(std::size_t c) const { return static_cast<T*>(chunks_[c].get()); }
  void add_chunk() {
    constexpr std::size_t kBytes = kChunkSize * sizeof(T);
    chunks_.emplace_back(detail::allocate_chunk(kBytes), detail::FreeChunk{kBytes});
    current_ = chunk(chunks_.size() - 1);
    fill_ = 0;
  }

  std::vector<std::unique_ptr<void, detail::FreeChunk>> chunks_;
  T* current_ = nullptr;
  std::size_t fill_ = 0;
};

}  // namespace tessera::obs
