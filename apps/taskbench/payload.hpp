#pragma once
// The data tasks pass along their edges, as in Task Bench's core: a task's output holds
// (timestep, point) pairs of 64-bit integers naming the task that wrote it, and a task
// checks every pair of every input before it runs, so a message delivered to the wrong
// task, a stale buffer or a missing dependency is caught.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include <fmt/format.h>

namespace tessera::taskbench {

/// Size of one (timestep, point) pair; outputs hold floor(bytes / kPairBytes) of them.
inline constexpr std::size_t kPairBytes = 2 * sizeof(std::int64_t);

/// Fills `out` with (t, point) pairs; trailing bytes that do not make a pair are untouched.
inline void write_output(std::span<std::byte> out, long t, long point) {
  const std::int64_t pair[2] = {t, point};
  for (std::size_t i = 0; i + kPairBytes <= out.size(); i += kPairBytes) {
    std::memcpy(out.data() + i, pair, kPairBytes);
  }
}

/// Checks that input number `index` of task (t, point), produced by task (t - 1, producer),
/// holds (t - 1, producer) in every pair. Returns a message naming the task, the input
/// and what was found if not.
inline std::optional<std::string> check_input(std::span<const std::byte> in, long t, long point,
                                              long index, long producer) {
  for (std::size_t i = 0; i + kPairBytes <= in.size(); i += kPairBytes) {
    std::int64_t pair[2];
    std::memcpy(pair, in.data() + i, kPairBytes);
    if (pair[0] != t - 1 || pair[1] != producer) {
      return fmt::format(
          "verification failed: task (timestep {}, point {}): input {} at pair {} holds "
          "(timestep {}, point {}), expected (timestep {}, point {})",
          t, point, index, i / kPairBytes, pair[0], pair[1], t - 1, producer);
    }
  }
  return std::nullopt;
}

}  // namespace tessera::taskbench
