#pragma once
// Chase–Lev work-stealing deque (the C11 formulation of Lê et al., PPoPP 2013).
// The owner pushes and pops at the bottom (LIFO, cache-warm); thieves steal from the
// top (FIFO, oldest work). Grows on demand; retired arrays are freed with the deque
// because a thief may still read from them.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::detail {

template <class T>
class WorkStealingDeque {
  static_assert(std::is_pointer_v<T>, "holds pointers");

  struct Array {
    explicit Array(std::int64_t capacity)
        : capacity(capacity), mask(capacity - 1), slots(new std::atomic<T>[capacity]) {}
    std::int64_t capacity;
    std::int64_t mask;
    std::unique_ptr<std::atomic<T>[]> slots;
    // Acquire/release on slots costs nothing on x86 and lets ThreadSanitizer see the
    // hand-off (it does not model stand-alone fences).
    T get(std::int64_t i) const { return slots[i & mask].load(std::memory_order_acquire); }
    void put(std::int64_t i, T v) { slots[i & mask].store(v, std::memory_order_release); }
  };

 public:
  explicit WorkStealingDeque(std::int64_t capacity = 1024) {
    auto first = std::make_unique<Array>(capacity);
    array_.store(first.get(), std::memory_order_relaxed);
    arrays_.push_back(std::move(first));
  }

  /// Owner only.
  void push(T item) {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    std::int64_t t = top_.load(std::memory_order_acquire);
    Array* a = array_.load(std::memory_order_relaxed);
    if (b - t > a->capacity - 1) a = grow(a, t, b);
    a->put(b, item);
    std::atomic_thread_fence(std::memory_order_release);
    bottom_.store(b + 1, std::memory_order_relaxed);
  }

  /// Owner only. Returns nullptr when empty.
  T pop() {
    // Empty: only the owner adds items, so no thief can change that. An idle thread polls
    // its deque in a loop; this spares each round the fence and the writes to bottom_.
    if (empty()) return nullptr;
    std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    Array* a = array_.load(std::memory_order_relaxed);
    bottom_.store(b, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_relaxed);
    T item = nullptr;
    if (t <= b) {
      item = a->get(b);
      if (t == b) {
        if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                          std::memory_order_relaxed)) {
          item = nullptr;
        }
        bottom_.store(b + 1, std::memory_order_relaxed);
      }
    } else {
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return item;
  }

  /// Owner only, when no other thread can steal (a single-threaded runtime): the same
  /// as pop() without the full fence that guards the race with thieves.
  T pop_unshared() {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    if (b < top_.load(std::memory_order_relaxed)) return nullptr;
    bottom_.store(b, std::memory_order_relaxed);
    return array_.load(std::memory_order_relaxed)->get(b);
  }
  /// Any thread. Returns nullptr when empty or when losing a race.
  T steal() {
    if (empty()) return nullptr;  // without the fence: idle threads poll their victims
    std::int64_t t = top_.load(std::memory_order_acquire);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::int64_t b = bottom_.load(std::memory_order_acquire);
    if (t >= b) return nullptr;
    Array* a = array_.load(std::memory_order_acquire);
    T item = a->get(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed)) {
      return nullptr;
    }
    return item;
  }

  /// Approximate number of items; exact for the owner when no thief is active.
  std::int64_t size() const {
    const std::int64_t n =
        bottom_.load(std::memory_order_relaxed) - top_.load(std::memory_order_relaxed);
    return n > 0 ? n : 0;
  }

  /// Approximate; any thread.
  bool empty() const {
    return bottom_.load(std::memory_order_relaxed) <= top_.load(std::memory_order_relaxed);
  }

 private:
  Array* grow(Array* old, std::int64_t t, std::int64_t b) {
    auto bigger = std::make_unique<Array>(old->capacity * 2);
    for (std::int64_t i = t; i < b; ++i) bigger->put(i, old->get(i));
    Array* raw = bigger.get();
    arrays_.push_back(std::move(bigger));
    array_.store(raw, std::memory_order_release);
    return raw;
  }

  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
  alignas(64) std::atomic<Array*> array_{nullptr};
  std::vector<std::unique_ptr<Array>> arrays_;  // owner only
};

}  // namespace tessera::detail
