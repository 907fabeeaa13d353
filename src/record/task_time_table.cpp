#include "record/task_time_table.hpp"

#include <bit>

namespace tessera::obs {

TaskTimeTable::TaskTimeTable(std::size_t capacity)
    : slots_(std::bit_ceil(capacity < 2 ? std::size_t{2} : capacity)), mask_(slots_.size() - 1) {}

void TaskTimeTable::insert(const char* name, std::int64_t duration) {
  // Keep the load factor at most 1/2 so probes stay short.
  if (2 * (used_ + 1) > slots_.size()) {
    std::vector<Entry> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Entry& e : old) {
      if (e.name == nullptr) continue;
      std::size_t i = slot_of(e.name);
      while (slots_[i].name != nullptr) i = (i + 1) & mask_;
      slots_[i] = e;
    }
  }
  std::size_t i = slot_of(name);
  while (slots_[i].name != nullptr) i = (i + 1) & mask_;
  slots_[i] = Entry{name, 1, duration};
  ++used_;
}

}  // namespace tessera::obs
