#include "tessera/runtime/cost_table.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace tessera {

namespace {
// Values past a row's end, so that two threads' rows never share a cache line.
constexpr std::size_t kRowPadding = 8;

// Seconds the process's threads have spent runnable but not running (the second field of
// each /proc/self/task/<tid>/schedstat, in ns), 0 where unknown. A simulated rank's
// waits are the simulator's: 0 there.
double runnable_waiting_seconds() {
#ifdef TESSERA_SMPI
  return 0.0;
#else
  std::error_code error;
  std::int64_t total = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream stat(task.path() / "schedstat");
    std::int64_t running = 0, waiting = 0;
    if (stat >> running >> waiting) total += waiting;
  }
  return static_cast<double>(total) * 1e-9;
#endif
}
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
  waited_at_open_ = runnable_waiting_seconds();
}

CostWindow CostTable::close_window(double keep) {
  if (!(keep >= 0.0 && keep < 1.0))
    throw std::invalid_argument("CostTable::close_window: keep must be in [0, 1)");
  const base::TickCalibration clock(opened_);
  const double seconds_per_tick = clock.ns_per_tick() * 1e-9;
  window_.busy_seconds = 0;
  window_.work_done = 0;
  const double waited = runnable_waiting_seconds();
  window_.waiting_seconds =
      keep * window_.waiting_seconds + std::max(0.0, waited - waited_at_open_);
  waited_at_open_ = waited;
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
