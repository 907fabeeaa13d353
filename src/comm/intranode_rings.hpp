#pragma once
// Message rings between the ranks of one node, in POSIX shared memory.
//
// Each ordered pair of ranks on a node (sender s, receiver r) owns one single-producer,
// single-consumer ring in r's part of the window: fixed slots, each a 16-byte header
// (sequence number, tag, size) followed by the payload. The sender writes a slot and
// then publishes its sequence number; the receiver reads slots in sequence order and
// then publishes how many it consumed, so the sender may reuse them. A small message
// moves between the two cores in the header's cache line, with none of MPI's matching,
// request objects or progress engine on the way: those are built for any message between
// any ranks, and at sub-microsecond task granularity they are a large share of a step.
//
// Only the rank's main thread uses its rings (MPI_THREAD_FUNNELED, as for MPI calls).
// Matching of messages to receives is Comm's (src/comm/comm_intranode.cpp).

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tessera::detail {

class IntranodeRings {
 public:
  static constexpr std::size_t kSlotBytes = 1024;
  static constexpr std::size_t kHeaderBytes = 16;
  static constexpr std::size_t kSlots = 32;
  /// The largest message a ring carries; larger ones travel through MPI.
  static constexpr std::size_t kMaxMessageBytes = kSlotBytes - kHeaderBytes;

  /// Collective over `comm`: finds the ranks sharing this rank's node and maps their
  /// rings. Throws std::runtime_error on every rank of the node if a rank cannot.
  explicit IntranodeRings(MPI_Comm comm);
  /// Unmaps the rings; local, so a rank that leaves early cannot hang the others.
  ~IntranodeRings();
  IntranodeRings(const IntranodeRings&) = delete;
  IntranodeRings& operator=(const IntranodeRings&) = delete;

  /// Whether messages to `peer` (a rank of the constructor's communicator) can travel
  /// through a ring: it shares this node and is not this rank.
  bool reaches(int peer) const {
    return peer >= 0 && static_cast<std::size_t>(peer) < outbound_.size() &&
           outbound_[static_cast<std::size_t>(peer)].ring != nullptr;
  }

  /// Writes a message of at most kMaxMessageBytes to `peer`'s ring; false, with nothing
  /// written, while the ring is full (the receiver has not consumed kSlots messages).
  bool try_send(int peer, int tag, const void* data, std::size_t bytes);

  /// Calls deliver(peer, tag, std::span<const std::byte>) for every message arrived
  /// since the last poll, ring by ring, each ring's in sending order. The payload is
  /// valid during the call only. Returns the number of messages delivered.
  template <class Deliver>
  std::size_t poll(Deliver&& deliver);

  /// Ranks on this node other than this one.
  std::size_t peers() const { return inbound_.size(); }

 private:
  struct Slot {
    std::uint64_t sequence;  // published last: the message is complete once it matches
    std::int32_t tag;
    std::uint32_t bytes;
    std::byte payload[kMaxMessageBytes];
  };
  static_assert(sizeof(Slot) == kSlotBytes);
  struct alignas(64) Ring {
    std::uint64_t consumed;  // written by the receiver only; its own cache line
    alignas(64) Slot slots[kSlots];
  };
  struct Outbound {
    Ring* ring = nullptr;
    std::uint64_t sent = 0;           // messages written
    std::uint64_t seen_consumed = 0;  // the receiver's count, as last read
  };
  struct Inbound {
    Ring* ring;
    int peer;
    std::uint64_t consumed;
  };
  // The words are shared with another process: atomic_ref gives them the ordering.
  static std::uint64_t load_acquire(std::uint64_t& word) {
    return std::atomic_ref<std::uint64_t>(word).load(std::memory_order_acquire);
  }
  static void store_release(std::uint64_t& word, std::uint64_t value) {
    std::atomic_ref<std::uint64_t>(word).store(value, std::memory_order_release);
  }

  struct Mapping {
    void* address;
    std::size_t bytes;
  };
  std::vector<Mapping> mappings_;   // this rank's segment and those of its node peers
  std::vector<Outbound> outbound_;  // by peer rank of the constructor's communicator
  std::vector<Inbound> inbound_;    // one per other rank on this node
};

template <class Deliver>
std::size_t IntranodeRings::poll(Deliver&& deliver) {
  std::size_t delivered = 0;
  for (Inbound& in : inbound_) {
    for (;;) {
      Slot& slot = in.ring->slots[in.consumed % kSlots];
      if (load_acquire(slot.sequence) != in.consumed + 1) break;
      deliver(in.peer, static_cast<int>(slot.tag),
              std::span<const std::byte>(slot.payload, slot.bytes));
      store_release(in.ring->consumed, ++in.consumed);
      ++delivered;
    }
  }
  return delivered;
}

}  // namespace tessera::detail
