#pragma once
// The bytes one rank will need for a run, itemised, estimated from the options before any
// large allocation (Session::check_memory compares it with the node's memory).

#include <string>
#include <utility>
#include <vector>

namespace tessera {

/// Bytes one rank needs, by item ("fields", "ghosts", "message buffers", "metadata").
/// Doubles, so absurd inputs (10^18 bytes) neither overflow nor wrap.
struct MemoryEstimate {
  std::vector<std::pair<std::string, double>> items;

  /// Adds `bytes` to item `what` (a new item unless one of that name exists).
  void add(const std::string& what, double bytes);
  double total() const;
  /// "fields 1.2 GB, ghosts 80.0 MB, ..." in insertion order.
  std::string breakdown() const;
};

/// "1.4 TB", "11.5 GB", "640.0 kB", "12 B": decimal units, one decimal.
std::string format_bytes(double bytes);

}  // namespace tessera
