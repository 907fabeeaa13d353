#include "tessera/runtime/cost_table.hpp"

#include <stdexcept>
#include <string>

namespace tessera {

namespace {
// Values past a row's end, so that two threads' rows never share a cache line.
constexpr std::size_t kRowPadding = 8;
}  // namespace

CostTable::CostTable(int threads, std::size_t slots) : threads_(threads) {
  if (threads < 1)
    throw std::invalid_argument("CostTable: threads must be >= 1, got " + std::to_string(threads));
  reset(slots);
}

CostTable::~CostTable() = default;

void CostTable::reset(std::size_t slots) {
  slots_ = slots;
  rows_.clear();
  for (int t = 0; t < threads_; ++t) {
    rows_.push_back(std::make_unique<std::int64_t[]>(2 * slots + kRowPadding));
  }
  window_ = CostWindow{};
  window_.seconds.assign(slots, 0.0);
  window_.work.assign(slots, 0.0);
  window_.threads = threads_;
  opened_ = base::TickReference::now();
}

CostWindow CostTable::close_window(double keep) {
  if (!(keep >= 0.0 && keep < 1.0))
    throw std::invalid_argument("CostTable::close_window: keep must be in [0, 1)");
  const base::TickCalibration clock(opened_);
  const double seconds_per_tick = clock.ns_per_tick() * 1e-9;
  window_.busy_seconds = 0;
  window_.work_done = 0;
  for (std::size_t s = 0; s < slots_; ++s) {
    std::int64_t ticks = 0, work = 0;
    for (auto& row : rows_) {
      ticks += row[2 * s];
      work += row[2 * s + 1];
      row[2 * s] = 0;
      row[2 * s + 1] = 0;
    }
    window_.seconds[s] = keep * window_.seconds[s] + static_cast<double>(ticks) * seconds_per_tick;
    window_.work[s] = keep * window_.work[s] + static_cast<double>(work);
    window_.busy_seconds += window_.seconds[s];
    window_.work_done += window_.work[s];
  }
  return window_;
}

}  // namespace tessera
