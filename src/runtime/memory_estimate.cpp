#include "tessera/runtime/memory_estimate.hpp"

#include <fmt/format.h>

namespace tessera {

void MemoryEstimate::add(const std::string& what, double bytes) {
  for (auto& item : items) {
    if (item.first == what) {
      item.second += bytes;
      return;
    }
  }
  items.emplace_back(what, bytes);
}

double MemoryEstimate::total() const {
  double sum = 0;
  for (const auto& item : items) sum += item.second;
  return sum;
}

std::string MemoryEstimate::breakdown() const {
  std::string text;
  for (const auto& [what, bytes] : items) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", what, format_bytes(bytes));
  }
  return text;
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 6) {
    bytes /= 1000;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

}  // namespace tessera
