#include "tessera/comm/comm.hpp"

#include "comm/comm_lane.hpp"

#include "comm/intranode_rings.hpp"
#include "comm/tree_allreduce.hpp"
#include "tessera/base/check_mpi.hpp"
#include "tessera/base/tick_clock.hpp"
#include "tessera/runtime/compute_hook.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <stdexcept>

namespace tessera {

namespace {

using detail::check_mpi;

int message_count(std::size_t bytes, const char* what) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument(
        fmt::format("{}: message of {} bytes exceeds the {} bytes one MPI message may carry", what,
                    bytes, INT_MAX));
  }
  return static_cast<int>(bytes);
}

}  // namespace

std::string_view to_string(CommEvent::Kind kind) {
  switch (kind) {
    case CommEvent::Kind::send:
      return "send";
    case CommEvent::Kind::recv:
      return "recv";
    case CommEvent::Kind::allreduce:
      return "allreduce";
    case CommEvent::Kind::barrier:
      return "barrier";
    case CommEvent::Kind::custom:
      return "custom";
  }
  return "?";
}

int TagSpace::tag(std::int64_t i) const {
  if (i < 0 || i >= count_) {
    throw std::out_of_range(
        fmt::format("tag index {} outside the {} tags reserved for '{}'", i, count_, purpose_));
  }
  return base_ + static_cast<int>(i);
}

std::string_view to_string(Intranode intranode) {
  return intranode == Intranode::rings ? "rings" : "mpi";
}

detail::CommLane::CommLane(Runtime& runtime, MPI_Comm comm, Intranode intranode)
    : runtime_(runtime), comm_(comm), intranode_(intranode) {
  // Before any MPI object exists: a bad setting throws without leaving one behind.
  tree_collectives_ = detail::tree_collectives_wanted();
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  int* ub = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &found), "MPI_Comm_get_attr");
  if (found && ub) tag_ub_ = *ub;
  check_mpi(MPI_Type_contiguous(ExactSum::kLimbs + 1, MPI_INT64_T, &exact_type_),
            "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&exact_type_), "MPI_Type_commit");
  check_mpi(MPI_Op_create(&detail::exact_sum_op, 1, &exact_op_), "MPI_Op_create");
  if (tree_collectives_) check_mpi(MPI_Comm_dup(comm_, &tree_comm_), "MPI_Comm_dup");
  const base::TickReference reference = base::TickReference::now();
  reference_ticks_ = reference.ticks;
  reference_ns_ = reference.ns;
  if (intranode_ == Intranode::rings) {
    rings_ = std::make_unique<detail::IntranodeRings>(comm_);
    if (rings_->peers() == 0) {
      rings_.reset();
    } else {
      ring_peers_ = std::vector<RingPeer>(static_cast<std::size_t>(size_));
    }
  }
  runtime_.set_progress_engine(this);
}

CommStats detail::CommLane::stats() const {
  CommStats s = stats_;
  const base::TickCalibration clock(base::TickReference{reference_ticks_, reference_ns_});
  s.wait_s = static_cast<double>(clock.duration_ns(idle_ticks_)) * 1e-9;
  return s;
}

detail::CommLane::~CommLane() {
  try {
    runtime_.wait_all();
  } catch (...) {
    // Errors belong to the caller's own waits; never throw from a destructor.
  }
  runtime_.set_progress_engine(nullptr);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    MPI_Op_free(&exact_op_);
    MPI_Type_free(&exact_type_);
    if (tree_comm_ != MPI_COMM_NULL) MPI_Comm_free(&tree_comm_);
  }
}

TagSpace detail::CommLane::allocate_tags(const std::string& purpose, int count) {
  if (count < 1) {
    throw std::invalid_argument(
        fmt::format("tag space '{}': count must be >= 1 (got {})", purpose, count));
  }
  if (static_cast<long long>(next_tag_) + count - 1 > tag_ub_) {
    throw std::runtime_error(fmt::format(
        "tag space exhausted: '{}' needs {} tags but only {} remain below MPI_TAG_UB = {}", purpose,
        count, tag_ub_ + 1 - next_tag_, tag_ub_));
  }
  TagSpace space(purpose, next_tag_, count);
  next_tag_ += count;
  return space;
}

std::uint64_t detail::CommLane::channel_key(CommEvent::Kind kind, int peer, int tag) {
  // Point-to-point matching in MPI is per (peer, tag, communicator) in posting order, and
  // collectives must be posted in the same order on every rank: one channel each.
  if (kind == CommEvent::Kind::barrier) kind = CommEvent::Kind::allreduce;
  const auto k = static_cast<std::uint64_t>(kind);
  return (k << 62) ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(peer)) << 31) ^
         static_cast<std::uint32_t>(tag);
}

void detail::CommLane::submit_ordered(const char* name, std::span<const Access> accesses,
                                      TaskAttributes attributes, const Operation& operation) {
  if (runtime_.recording()) {
    record_operation(name, accesses, attributes, operation);
    return;
  }
  // Map nodes never move, so the task keeps a pointer rather than looking the key up again.
  Channel* channel = &channels_[channel_key(operation.kind, operation.peer, operation.tag)];
  const std::uint64_t sequence = ++channel->submitted;
  runtime_.submit(
      name, accesses,
      [this, channel, sequence, operation](TaskContext& ctx) {
        post_in_order(*channel, sequence, ctx, operation);
      },
      Comm::comm_attributes(attributes));
}

// A recorded operation is posted by every replayed instance of its node, so it cannot
// keep a place in its channel's submission order. Instead the operations of one channel
// in a graph access a handle standing for the channel (readwrite): each waits for the
// one before it to complete, across iterations too, which fixes the posting order.
void detail::CommLane::record_operation(const char* name, std::span<const Access> accesses,
                                        TaskAttributes attributes, const Operation& operation) {
  const std::uint64_t key = channel_key(operation.kind, operation.peer, operation.tag);
  auto [it, added] = channel_handles_.try_emplace(key);
  if (added) {
    it->second = runtime_.create_handle(fmt::format(
        "channel {} peer {} tag {}", to_string(operation.kind), operation.peer, operation.tag));
  }
  std::vector<Access> all(accesses.begin(), accesses.end());
  all.push_back(readwrite(it->second));
  runtime_.submit(
      name, std::span<const Access>(all),
      [this, operation](TaskContext& ctx) { post(operation, ctx, CompletionToken(), ctx.name()); },
      Comm::comm_attributes(attributes));
}

// Operations of one channel are posted in submission order, whatever order their tasks
// become ready in, so messages match the same way under every schedule and the result
// never depends on task completion order. A task ready too early parks its post here.
void detail::CommLane::post_in_order(Channel& channel, std::uint64_t sequence, TaskContext& ctx,
                                     const Operation& operation) {
  if (sequence != channel.posted + 1) {
    channel.waiting.push_back(DeferredPost{sequence, ctx.hold(), operation, ctx.name()});
    ++deferred_count_;
    return;
  }
  post(operation, ctx, CompletionToken(), ctx.name());
  ++channel.posted;
  for (bool again = true; again;) {
    again = false;
    for (auto it = channel.waiting.begin(); it != channel.waiting.end(); ++it) {
      if (it->sequence != channel.posted + 1) continue;
      DeferredPost next = std::move(*it);
      channel.waiting.erase(it);
      --deferred_count_;
      post(next.operation, ctx, std::move(next.token), next.name);
      ++channel.posted;
      again = true;
      break;
    }
  }
}

void detail::CommLane::post(const Operation& o, TaskContext& body, CompletionToken token,
                            const char* name) {
  // Deferred charges first: the MPI call happens at the simulated time they end.
  detail::flush_compute_charges();
  const detail::OverheadScope overhead("mpi.post");
  MPI_Request request;
  Pending pending{std::move(token),
                  CommEvent{o.kind, o.peer, o.tag, 0, 0, name, body.begin_ticks()}, nullptr,
                  nullptr};
  if (on_ring(o)) {
    post_on_ring(o, body, pending);
    return;
  }
  switch (o.kind) {
    case CommEvent::Kind::send:
      check_mpi(MPI_Isend(o.data, o.count, MPI_BYTE, o.peer, o.tag, comm_, &request), "MPI_Isend");
      pending.event.bytes = static_cast<std::size_t>(o.count);
      break;
    case CommEvent::Kind::recv:
      check_mpi(MPI_Irecv(o.data, o.count, MPI_BYTE, o.peer, o.tag, comm_, &request), "MPI_Irecv");
      pending.event.bytes = static_cast<std::size_t>(o.count);
      break;
    case CommEvent::Kind::allreduce:
      if (o.op == exact_op_) {
        auto* sum = static_cast<ExactSum*>(o.data);
        auto words = std::make_unique<std::vector<std::int64_t>>(ExactSum::kLimbs + 1);
        sum->normalize();
        for (int i = 0; i < ExactSum::kLimbs; ++i) (*words)[i] = sum->limbs()[i];
        (*words)[ExactSum::kLimbs] = sum->special();
        pending.sum = sum;
        if (tree_collectives_) {
          pending.scratch = std::move(words);
          const auto& scratch = *pending.scratch;
          post_tree(o, body, pending, scratch.data(), scratch.size() * sizeof(std::int64_t));
          return;
        }
#ifdef TESSERA_SMPI
        // SimGrid 3.32's non-blocking allreduce leaves the buffer unreduced for a derived
        // datatype with a user operation; it reduces MPI_INT64_T words whole, and the
        // operation checks that no accumulator was split.
        check_mpi(MPI_Iallreduce(MPI_IN_PLACE, words->data(), ExactSum::kLimbs + 1, MPI_INT64_T,
                                 exact_op_, comm_, &request),
                  "MPI_Iallreduce");
#else
        check_mpi(
            MPI_Iallreduce(MPI_IN_PLACE, words->data(), 1, exact_type_, exact_op_, comm_, &request),
            "MPI_Iallreduce");
#endif
        pending.event.bytes = words->size() * sizeof(std::int64_t);
        pending.scratch = std::move(words);
      } else {
        int size = 0;
        MPI_Type_size(o.type, &size);
        if (tree_collectives_) {
          post_tree(o, body, pending, o.data,
                    static_cast<std::size_t>(size) * static_cast<std::size_t>(o.count));
          return;
        }
        check_mpi(MPI_Iallreduce(MPI_IN_PLACE, o.data, o.count, o.type, o.op, comm_, &request),
                  "MPI_Iallreduce");
        pending.event.bytes = static_cast<std::size_t>(size) * static_cast<std::size_t>(o.count);
      }
      break;
    case CommEvent::Kind::barrier:
      if (tree_collectives_) {
        post_tree(o, body, pending, nullptr, 0);
        return;
      }
      check_mpi(MPI_Ibarrier(comm_, &request), "MPI_Ibarrier");
      break;
    case CommEvent::Kind::custom:
      throw std::logic_error("Comm::post: custom operations are bound, not posted");
  }
  pending.event.id = next_id();
  if (o.kind == CommEvent::Kind::send) {
    // A small send is usually complete once posted (copied out eagerly): finishing it
    // here saves the lane a request to test and releases the buffer's next writer now.
    int done = 0;
    MPI_Status status;
    check_mpi(MPI_Test(&request, &done, &status), "MPI_Test");
    if (done) {
      announce(pending);
      pending.event.completed_ticks = pending.event.posted_ticks;
      finish(pending, 0);
      return;
    }
  }
  if (!pending.token.valid()) pending.token = body.hold();
  track(request, std::move(pending));
}

void detail::CommLane::isend(std::span<const Access> accesses, const void* data, std::size_t bytes,
                             int peer, int tag, TaskAttributes attributes, const char* name) {
  // MPI_Isend does not write the buffer; the shared path only needs a non-const pointer
  // for the receive side.
  submit_point_to_point(CommEvent::Kind::send, accesses, const_cast<void*>(data), bytes, peer, tag,
                        attributes, name);
}

void detail::CommLane::irecv(std::span<const Access> accesses, void* data, std::size_t bytes,
                             int peer, int tag, TaskAttributes attributes, const char* name) {
  submit_point_to_point(CommEvent::Kind::recv, accesses, data, bytes, peer, tag, attributes, name);
}

void detail::CommLane::submit_point_to_point(CommEvent::Kind kind, std::span<const Access> accesses,
                                             void* data, std::size_t bytes, int peer, int tag,
                                             TaskAttributes attributes, const char* name) {
  const int count = message_count(bytes, kind == CommEvent::Kind::send ? "isend" : "irecv");
  submit_ordered(name, accesses, attributes,
                 Operation{data, MPI_BYTE, MPI_OP_NULL, count, peer, tag, kind});
}

void detail::CommLane::bind(TaskContext& ctx, MPI_Request request, CommEvent::Kind kind, int peer,
                            int tag, std::size_t bytes) {
  // On another thread, the task's own MPI call already broke MPI_THREAD_FUNNELED and the
  // lane's request list would race; with one thread it would go unnoticed until there
  // are more.
  if (!ctx.main_thread_only()) {
    throw std::logic_error(fmt::format(
        "Comm::bind: task '{}' was not submitted with Comm::comm_attributes(); only the main "
        "thread may make MPI calls",
        ctx.name()));
  }
  track(request,
        Pending{ctx.hold(),
                CommEvent{kind, peer, tag, bytes, next_id(), ctx.name(), ctx.begin_ticks()},
                nullptr, nullptr});
}

void detail::CommLane::track(MPI_Request request, Pending&& pending) {
  announce(pending);
  requests_.push_back(request);
  pending_.push_back(std::move(pending));
}

void detail::CommLane::announce(Pending& pending) {
  if (pending.event.posted_ticks == 0) pending.event.posted_ticks = base::fast_ticks();
  for (CommObserver* o : post_observers_) o->on_post(pending.event);
  if (pending.event.kind == CommEvent::Kind::send) {
    ++stats_.messages_sent;
    stats_.bytes_sent += pending.event.bytes;
  } else if (pending.event.kind == CommEvent::Kind::allreduce ||
             pending.event.kind == CommEvent::Kind::barrier) {
    ++stats_.collectives;
  }
}

std::size_t detail::CommLane::received_bytes(const Pending& done, const MPI_Status& status) {
  if (done.event.kind != CommEvent::Kind::recv) return 0;
  int received = 0;
  MPI_Get_count(&status, MPI_BYTE, &received);
  return static_cast<std::size_t>(received);
}

void detail::CommLane::finish(Pending& done, std::size_t received) {
  if (done.event.kind == CommEvent::Kind::recv) {
    if (received != done.event.bytes && error_.empty()) {
      error_ = fmt::format("irecv from rank {} tag {}: expected {} bytes, received {}",
                           done.event.peer, done.event.tag, done.event.bytes, received);
    }
    ++stats_.messages_received;
    stats_.bytes_received += done.event.bytes;
  }
  if (done.sum) {
    auto& words = *done.scratch;
    for (int i = 0; i < ExactSum::kLimbs; ++i) done.sum->limbs()[i] = words[i];
    done.sum->set_special(static_cast<std::uint32_t>(words[ExactSum::kLimbs]));
  }
  for (CommObserver* o : observers_) o->on_complete(done.event);
  ++completions_;
  // An eager send's token is empty: its task finishes with its body.
  if (done.token.valid()) runtime_.complete(std::move(done.token));
}

LaneProgress detail::CommLane::poll(bool block) {
  // Lane time is the handling of finished operations; a poll that finds nothing is
  // waiting, accounted by the scheduler as idle time. The stamp, taken at the first
  // completion found, also times the completions: they all happened by then.
  std::int64_t start = 0;
  detail::flush_compute_charges();
  // Handling completions is work; a poll that found none was waiting (dropped below).
  detail::OverheadScope overhead("mpi.complete");
  bool handled = false;
  const bool rings_in_flight = rings_ && progress_rings(&start);
  if (!requests_.empty()) {
    const int n = static_cast<int>(requests_.size());
    if (indices_.size() < requests_.size()) {
      indices_.resize(requests_.size());
      completed_.resize(requests_.size());
    }
    int outcount = 0;
    if (block && !rings_ && std::none_of(pending_.begin(), pending_.end(), [](const Pending& p) {
          return p.event.kind != CommEvent::Kind::send && p.event.kind != CommEvent::Kind::recv;
        })) {
      check_mpi(MPI_Waitsome(n, requests_.data(), &outcount, indices_.data(), completed_.data()),
                "MPI_Waitsome");
    } else {
      check_mpi(MPI_Testsome(n, requests_.data(), &outcount, indices_.data(), completed_.data()),
                "MPI_Testsome");
    }
    if (outcount > 0 && outcount != MPI_UNDEFINED) {
      handled = true;
      if (start == 0 && !observers_.empty()) start = base::fast_ticks();
      std::vector<TreeInFlight*> stepped;
      for (int k = 0; k < outcount; ++k) {
        Pending& done = pending_[static_cast<std::size_t>(indices_[k])];
        if (done.tree) {
          if (--done.tree->outstanding == 0) stepped.push_back(done.tree);
          continue;
        }
        done.event.completed_ticks = start;
        const std::size_t received = received_bytes(done, completed_[k]);
        finish(done, received);
      }
      std::size_t keep = 0;
      for (std::size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL) continue;
        if (keep != i) {
          requests_[keep] = requests_[i];
          pending_[keep] = std::move(pending_[i]);
        }
        ++keep;
      }
      requests_.resize(keep);
      pending_.resize(keep);
      for (TreeInFlight* tree : stepped) {
        step_tree(std::find_if(trees_.begin(), trees_.end(),
                               [tree](const TreeInFlight& t) { return &t == tree; }));
      }
    }
  }
  if (!handled) overhead.drop();
  LaneProgress result;
  result.in_flight =
      rings_in_flight || !requests_.empty() || !trees_.empty() || deferred_count_ > 0;
  if (start != 0) {
    result.handled_from = start;
    result.handled_to = base::fast_ticks();
    for (CommObserver* o : observers_) o->on_lane_time(result.handled_to - start);
  }
  if (!error_.empty()) throw std::runtime_error(std::exchange(error_, std::string()));
  return result;
}

void detail::CommLane::describe_operation(std::ostream& out, const CommEvent& event,
                                          std::int64_t now, std::string_view via) const {
  const base::TickCalibration clock(base::TickReference{reference_ticks_, reference_ns_});
  out << fmt::format("  {} '{}' peer {} tag {} bytes {} age {:.3f} s{}\n", to_string(event.kind),
                     event.name, event.peer, event.tag, event.bytes,
                     static_cast<double>(clock.duration_ns(now - event.posted_ticks)) * 1e-9, via);
}

void detail::CommLane::describe(std::ostream& out) const {
  const std::int64_t now = base::fast_ticks();
  out << fmt::format(
      "comm rank {}: {} request(s) in flight, {} ring operation(s) in flight, "
      "{} post(s) deferred\n",
      rank_, pending_.size(), ring_in_flight_, deferred_count_);
  for (const Pending& p : pending_) {
    if (!p.tree) describe_operation(out, p.event, now, "");
  }
  for (const TreeInFlight& t : trees_) {
    describe_operation(out, t.top.event, now, " (tree of point-to-point messages)");
  }
  describe_rings(out, now);
  for (const auto& [key, channel] : channels_) {
    for (const DeferredPost& d : channel.waiting) {
      out << fmt::format("  deferred post #{} waits for #{} of its channel to be posted\n",
                         d.sequence, channel.posted + 1);
    }
  }
}

// Comm: the public face of the lane. The forwarding calls sit in this file with the
// lane's definitions, so the compiler can inline them: a message costs no extra call.

Comm::Comm(Runtime& runtime, MPI_Comm comm, Intranode intranode)
    : runtime_(runtime),
      comm_(comm),
      intranode_(intranode),
      lane_(std::make_unique<detail::CommLane>(runtime, comm, intranode)) {
  rank_ = lane_->rank();
  size_ = lane_->size();
}

Comm::~Comm() = default;

TagSpace Comm::allocate_tags(const std::string& purpose, int count) {
  return lane_->allocate_tags(purpose, count);
}

void Comm::isend(Handle h, const void* data, std::size_t bytes, int peer, int tag,
                 TaskAttributes attributes, const char* name) {
  const Access access = read(h);
  lane_->isend({&access, 1}, data, bytes, peer, tag, attributes, name);
}

void Comm::isend(std::span<const Access> accesses, const void* data, std::size_t bytes, int peer,
                 int tag, TaskAttributes attributes, const char* name) {
  lane_->isend(accesses, data, bytes, peer, tag, attributes, name);
}

void Comm::irecv(Handle h, void* data, std::size_t bytes, int peer, int tag,
                 TaskAttributes attributes, const char* name) {
  const Access access = write(h);
  lane_->irecv({&access, 1}, data, bytes, peer, tag, attributes, name);
}

void Comm::irecv(std::span<const Access> accesses, void* data, std::size_t bytes, int peer, int tag,
                 TaskAttributes attributes, const char* name) {
  lane_->irecv(accesses, data, bytes, peer, tag, attributes, name);
}

void Comm::iallreduce_sum(Handle h, ExactSum* sum, TaskAttributes attributes) {
  lane_->iallreduce_sum(h, sum, attributes);
}

void Comm::iallreduce(Handle h, void* data, int count, MPI_Datatype type, MPI_Op op,
                      TaskAttributes attributes) {
  lane_->iallreduce(h, data, count, type, op, attributes);
}

void Comm::ibarrier(Handle h, TaskAttributes attributes) {
  lane_->ibarrier(h, attributes);
}

void Comm::bind(TaskContext& ctx, MPI_Request request, CommEvent::Kind kind, int peer, int tag,
                std::size_t bytes) {
  lane_->bind(ctx, request, kind, peer, tag, bytes);
}

std::size_t Comm::deferred_posts() const {
  return lane_->deferred_posts();
}

CommStats Comm::stats() const {
  return lane_->stats();
}

void Comm::add_observer(CommObserver* observer) {
  lane_->add_observer(observer);
}

}  // namespace tessera
