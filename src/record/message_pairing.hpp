#pragma once
// Matching point-to-point sends with receives across ranks, as MPI does: messages
// between one pair of ranks with one tag are non-overtaking, so the k-th send posted
// from a to b with tag t is received by the k-th receive posted on b from a with tag t.

#include <cstdint>
#include <span>
#include <vector>

namespace tessera::obs {

/// A send or receive as recorded on `rank`. `order` is the rank's posting order.
struct MessageRecord {
  int rank;
  int peer;
  int tag;
  std::uint64_t order;
  bool is_send;
};

/// For every record, the index (into `records`) of its partner, or -1 when it has none
/// (a send never received within the trace, or the reverse).
std::vector<std::int64_t> pair_messages(std::span<const MessageRecord> records);

}  // namespace tessera::obs
