#pragma once
// Per-thread execution-time totals per task name, cheap enough for every task of every
// run: task names are string literals, so the name's address identifies it and no
// characters are hashed or compared on the hot path.

#include <cstdint>
#include <vector>

namespace tessera::obs {

/// Open-addressing table from name pointer to {count, total time} (time in the caller's
/// unit: nanoseconds or ticks). Single writer.
/// Two literals with the same text but different addresses get separate entries;
/// whoever reads the table merges them by text.
class TaskTimeTable {
 public:
  struct Entry {
    const char* name = nullptr;  ///< nullptr marks a free slot
    std::uint64_t count = 0;
    std::int64_t total = 0;
  };

  /// `capacity` is rounded up to a power of two; the table grows as needed.
  explicit TaskTimeTable(std::size_t capacity = 64);

  /// Adds one execution lasting `duration` to `name` (nullptr is counted as "").
  void add(const char* name, std::int64_t duration) {
    if (name == nullptr) name = "";
    std::size_t i = slot_of(name);
    while (true) {
      Entry& e = slots_[i];
      if (e.name == name) {
        ++e.count;
        e.total += duration;
        return;
      }
      if (e.name == nullptr) break;
      i = (i + 1) & mask_;
    }
    insert(name, duration);
  }

  /// Calls f(const Entry&) for every name seen, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    for (const Entry& e : slots_) {
      if (e.name != nullptr) f(e);
    }
  }
  std::size_t size() const { return used_; }

 private:
  std::size_t slot_of(const char* name) const {
    // Fibonacci hashing of the address; the low bits of literal addresses carry little.
    const auto bits = reinterpret_cast<std::uintptr_t>(name);
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
  }
  void insert(const char* name, std::int64_t duration);

  std::vector<Entry> slots_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;
};

}  // namespace tessera::obs
