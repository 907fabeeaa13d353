// Comm's path for small point-to-point messages between ranks of one node: posts, matching
// and completion over the shared-memory rings of src/comm/intranode_rings.hpp.
//
// Matching follows MPI's rules for one communicator: a message matches the earliest
// posted receive from its sender with its tag, and messages from one sender arrive in
// sending order. A message that finds no receive waits in the peer's unexpected queue
// (copied out, so its slot is free again), as MPI's eager protocol buffers it. Which path
// an operation takes depends only on its peer and size, so both ends of a channel take
// the same one whenever their sizes agree.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <utility>

#include "comm/comm_lane.hpp"
#include "comm/intranode_rings.hpp"
#include "tessera/base/tick_clock.hpp"
#include "tessera/comm/comm.hpp"

namespace tessera {

bool detail::CommLane::on_ring(const Operation& o) const {
  return rings_ && (o.kind == CommEvent::Kind::send || o.kind == CommEvent::Kind::recv) &&
         static_cast<std::size_t>(o.count) <= detail::IntranodeRings::kMaxMessageBytes &&
         rings_->reaches(o.peer);
}

void detail::CommLane::post_on_ring(const Operation& o, TaskContext& body, Pending& pending) {
  pending.event.bytes = static_cast<std::size_t>(o.count);
  pending.event.id = next_id();
  RingPeer& peer = ring_peers_[static_cast<std::size_t>(o.peer)];
  if (o.kind == CommEvent::Kind::send) {
    ++stats_.ring_messages_sent;
    // Behind a blocked send, a later one waits too: messages leave in posting order.
    if (peer.blocked.empty() && rings_->try_send(o.peer, o.tag, o.data, pending.event.bytes)) {
      announce(pending);
      pending.event.completed_ticks = pending.event.posted_ticks;
      finish(pending, 0);
      return;
    }
    if (!pending.token.valid()) pending.token = body.hold();
    announce(pending);
    peer.blocked.push_back(RingSend{std::move(pending), o.data});
    ++ring_blocked_;
    ++ring_in_flight_;
    return;
  }
  announce(pending);
  if (!peer.unexpected.empty()) {
    const auto arrived = std::find_if(peer.unexpected.begin(), peer.unexpected.end(),
                                      [&](const RingMessage& m) { return m.tag == o.tag; });
    if (arrived != peer.unexpected.end()) {
      const RingMessage message = std::move(*arrived);
      peer.unexpected.erase(arrived);
      pending.event.completed_ticks = pending.event.posted_ticks;
      receive_from_ring(pending, o.data, message.payload);
      // Nothing is left to poll once this receive completed: report a size mismatch now.
      if (!error_.empty()) throw std::runtime_error(std::exchange(error_, std::string()));
      return;
    }
  }
  if (!pending.token.valid()) pending.token = body.hold();
  peer.posted.push_back(RingReceive{std::move(pending), o.data});
  ++ring_in_flight_;
}

void detail::CommLane::receive_from_ring(Pending& pending, void* data,
                                         std::span<const std::byte> payload) {
  // A longer message than expected is cut to the buffer (MPI would truncate too); finish
  // reports the difference either way.
  const std::size_t bytes = std::min(payload.size(), pending.event.bytes);
  if (bytes > 0) std::memcpy(data, payload.data(), bytes);
  finish(pending, payload.size());
}

bool detail::CommLane::progress_rings(std::int64_t* ticks) {
  const auto stamp = [&] {
    if (*ticks == 0 && !observers_.empty()) *ticks = base::fast_ticks();
    return *ticks;
  };
  if (ring_blocked_ > 0) {
    for (std::size_t p = 0; p < ring_peers_.size(); ++p) {
      std::deque<RingSend>& blocked = ring_peers_[p].blocked;
      while (!blocked.empty()) {
        RingSend& send = blocked.front();
        if (!rings_->try_send(static_cast<int>(p), send.pending.event.tag, send.data,
                              send.pending.event.bytes)) {
          break;
        }
        --ring_blocked_;
        --ring_in_flight_;
        send.pending.event.completed_ticks = stamp();
        finish(send.pending, 0);
        blocked.pop_front();
      }
    }
  }
  rings_->poll([&](int from, int tag, std::span<const std::byte> payload) {
    RingPeer& peer = ring_peers_[static_cast<std::size_t>(from)];
    const auto posted =
        std::find_if(peer.posted.begin(), peer.posted.end(),
                     [&](const RingReceive& r) { return r.pending.event.tag == tag; });
    if (posted == peer.posted.end()) {
      peer.unexpected.push_back(RingMessage{tag, {payload.begin(), payload.end()}});
      return;
    }
    // Completing a task only releases its successors (no body runs in here), so the
    // entry is finished where it stands and erased after.
    --ring_in_flight_;
    posted->pending.event.completed_ticks = stamp();
    receive_from_ring(posted->pending, posted->data, payload);
    peer.posted.erase(posted);
  });
  return ring_in_flight_ > 0;
}

void detail::CommLane::describe_rings(std::ostream& out, std::int64_t now) const {
  for (std::size_t p = 0; p < ring_peers_.size(); ++p) {
    const RingPeer& peer = ring_peers_[p];
    for (const RingReceive& r : peer.posted)
      describe_operation(out, r.pending.event, now, " (ring)");
    for (const RingSend& s : peer.blocked) {
      describe_operation(out, s.pending.event, now, " (waits for a free slot in its ring)");
    }
    if (!peer.unexpected.empty()) {
      std::string tags;
      for (const RingMessage& m : peer.unexpected) tags += fmt::format(" {}", m.tag);
      out << fmt::format("  {} message(s) from rank {} arrived without a receive, tags:{}\n",
                         peer.unexpected.size(), p, tags);
    }
  }
}

}  // namespace tessera
