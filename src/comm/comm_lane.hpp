#pragma once
// The communication lane behind tessera::Comm (include/tessera/comm/comm.hpp): the state
// of every operation in flight, the per-channel posting order and the shared-memory rings.
// Private to the library; Comm forwards its public calls here. The lane is the runtime's
// progress engine itself, so the main thread's polls reach it without passing through Comm.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tessera/comm/comm.hpp"

namespace tessera::detail {

/// MPI reduction over ExactSum accumulators (limbs and a word of special-value flags):
/// integer addition, hence exact, associative and commutative (comm_collectives.cpp).
void exact_sum_op(void* in, void* inout, int* len, MPI_Datatype* type);
/// Whether collectives go as point-to-point trees: TESSERA_COLLECTIVES=tree|mpi, by
/// default trees in an SMPI build only; throws std::invalid_argument on another value.
bool tree_collectives_wanted();

class IntranodeRings;
class TreeAllreduce;

/// What a Comm does, as documented there; one per Comm, created and used on the main thread.
class CommLane final : public ProgressEngine {
 public:
  CommLane(Runtime& runtime, MPI_Comm comm, Intranode intranode);
  ~CommLane() override;
  CommLane(const CommLane&) = delete;
  CommLane& operator=(const CommLane&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm mpi() const { return comm_; }
  Runtime& runtime() { return runtime_; }
  Intranode intranode() const { return intranode_; }

  TagSpace allocate_tags(const std::string& purpose, int count);
  void isend(std::span<const Access> accesses, const void* data, std::size_t bytes, int peer,
             int tag, TaskAttributes attributes, const char* name);
  void irecv(std::span<const Access> accesses, void* data, std::size_t bytes, int peer, int tag,
             TaskAttributes attributes, const char* name);
  void iallreduce_sum(Handle h, ExactSum* sum, TaskAttributes attributes);
  void iallreduce(Handle h, void* data, int count, MPI_Datatype type, MPI_Op op,
                  TaskAttributes attributes);
  void ibarrier(Handle h, TaskAttributes attributes);
  void bind(TaskContext& ctx, MPI_Request request, CommEvent::Kind kind, int peer, int tag,
            std::size_t bytes);
  std::size_t deferred_posts() const { return deferred_count_; }

  LaneProgress progress() override { return poll(false); }
  /// Waits in MPI_Waitsome when only sends and receives are in flight (SimGrid 3.32's
  /// Waitsome takes a pending non-blocking collective for a finished one); else polls.
  LaneProgress progress_blocking() override { return poll(true); }
  std::uint64_t completions() const override { return completions_; }
  void describe(std::ostream& out) const override;
  void idle_wait(std::int64_t ticks) override { idle_ticks_ += ticks; }

  CommStats stats() const;
  void add_observer(CommObserver* observer) {
    observers_.push_back(observer);
    if (observer->wants_posts()) post_observers_.push_back(observer);
  }

 private:
  /// One MPI operation as submitted, posted when its turn on its channel comes. Kept
  /// small and free of allocations: it travels inside the task body.
  struct Operation {
    void* data = nullptr;  // buffer; the ExactSum for an exact allreduce
    MPI_Datatype type = MPI_BYTE;
    MPI_Op op = MPI_OP_NULL;  // exact_op_ marks an exact allreduce of an ExactSum
    int count = 0;
    int peer = -1;
    int tag = 0;
    CommEvent::Kind kind = CommEvent::Kind::custom;
  };
  struct TreeInFlight;
  struct Pending {
    CompletionToken token;
    CommEvent event;
    ExactSum* sum = nullptr;                             // iallreduce_sum: result destination
    std::unique_ptr<std::vector<std::int64_t>> scratch;  // iallreduce_sum: limbs in flight
    TreeInFlight* tree = nullptr;  // a message of this tree collective's current step
  };
  /// A collective made of point-to-point messages (TESSERA_COLLECTIVES=tree): `top` is
  /// the operation as posted; its result goes to `out` (the scratch words of an exact sum).
  struct TreeInFlight {
    std::unique_ptr<TreeAllreduce> tree;
    Pending top;
    void* out = nullptr;
    int outstanding = 0;  // requests of the current step not yet complete
  };
  /// A receive posted on a ring, waiting for its message.
  struct RingReceive {
    Pending pending;
    void* data;
  };
  /// A message that arrived on a ring before its receive was posted.
  struct RingMessage {
    int tag;
    std::vector<std::byte> payload;
  };
  /// A send waiting for its ring to have a free slot.
  struct RingSend {
    Pending pending;
    const void* data;
  };
  /// Ring traffic with one peer, in posting and arrival order.
  struct RingPeer {
    std::vector<RingReceive> posted;
    std::deque<RingMessage> unexpected;
    std::deque<RingSend> blocked;
  };
  struct DeferredPost {
    std::uint64_t sequence;
    CompletionToken token;
    Operation operation;
    const char* name;
  };
  struct Channel {
    std::uint64_t submitted = 0;  // operations submitted on this channel (main thread)
    std::uint64_t posted = 0;     // operations posted
    std::vector<DeferredPost> waiting;
  };
  static std::uint64_t channel_key(CommEvent::Kind kind, int peer, int tag);
  void submit_ordered(const char* name, std::span<const Access> accesses, TaskAttributes attributes,
                      const Operation& operation);
  void record_operation(const char* name, std::span<const Access> accesses,
                        TaskAttributes attributes, const Operation& operation);
  void submit_point_to_point(CommEvent::Kind kind, std::span<const Access> accesses, void* data,
                             std::size_t bytes, int peer, int tag, TaskAttributes attributes,
                             const char* name);
  void post_in_order(Channel& channel, std::uint64_t sequence, TaskContext& ctx,
                     const Operation& operation);
  /// Posts from the running task `body`, stamped with its start. The operation completes
  /// the (deferred) task behind `token` or, with an empty token, `body`: its hold is taken
  /// only if the request outlives the post (an eager send does not), which spares a
  /// completion through the runtime.
  void post(const Operation& operation, TaskContext& body, CompletionToken token, const char* name);
  /// Whether the operation travels through a ring (point-to-point, small, same node).
  bool on_ring(const Operation& operation) const;
  /// Post of a ring operation; completes it at once if its message can move now, else
  /// moves `pending` into the peer's queues.
  void post_on_ring(const Operation& operation, TaskContext& body, Pending& pending);
  /// Moves blocked sends into their rings and matches arrived messages; whether ring
  /// operations remain in flight. Takes the lane's stamp `*ticks` if it completes one.
  /// One round of the lane: completes finished requests, waiting for one if `block`.
  LaneProgress poll(bool block);
  bool progress_rings(std::int64_t* ticks);
  /// A ring message's payload reaches the receive it matched, which completes.
  void receive_from_ring(Pending& pending, void* data, std::span<const std::byte> payload);
  /// Hang report lines: the ring operations in flight and the messages no receive matched.
  void describe_rings(std::ostream& out, std::int64_t now) const;
  /// One hang report line for an operation in flight; `via` follows it.
  void describe_operation(std::ostream& out, const CommEvent& event, std::int64_t now,
                          std::string_view via) const;
  void track(MPI_Request request, Pending&& pending);
  /// Posts a collective as a TreeAllreduce of `bytes` bytes at `data` (none: a barrier).
  void post_tree(const Operation& operation, TaskContext& body, Pending& pending, const void* data,
                 std::size_t bytes);
  /// Hands the tree's newly posted step to the request list, or completes the collective.
  void step_tree(std::list<TreeInFlight>::iterator it);
  /// Stamps an operation's post time (unless its task's stamp is already there), tells
  /// observers and the counters it was posted.
  void announce(Pending& pending);
  /// Completes a finished operation's task, checking that a receive got the `received`
  /// bytes it expects. Takes the token out of `done`, which is spent afterwards: the
  /// operations of a fine-grained step pass through here by reference, not by copy.
  void finish(Pending& done, std::size_t received);
  /// The bytes a finished MPI receive got (0 for other operations).
  static std::size_t received_bytes(const Pending& done, const MPI_Status& status);
  std::uint64_t next_id() { return ++operation_counter_; }

  Runtime& runtime_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  int tag_ub_ = 32767;
  int next_tag_ = 0;
  std::vector<MPI_Request> requests_;
  std::vector<Pending> pending_;
  std::uint64_t completions_ = 0;
  std::uint64_t operation_counter_ = 0;
  CommStats stats_;
  std::int64_t idle_ticks_ = 0;
  std::int64_t reference_ticks_ = 0;  // base::TickReference taken at construction
  std::int64_t reference_ns_ = 0;
  std::vector<CommObserver*> observers_;
  std::vector<CommObserver*> post_observers_;  // of observers_, those wanting on_post
  MPI_Datatype exact_type_ = MPI_DATATYPE_NULL;
  MPI_Op exact_op_ = MPI_OP_NULL;
  // TESSERA_COLLECTIVES=tree: collectives as point-to-point trees on a communicator of
  // their own (tags: the collective's sequence number, the same on every rank).
  bool tree_collectives_ = false;
  MPI_Comm tree_comm_ = MPI_COMM_NULL;
  std::uint64_t tree_sequence_ = 0;
  std::list<TreeInFlight> trees_;
  std::unordered_map<std::uint64_t, Channel> channels_;
  std::unordered_map<std::uint64_t, Handle> channel_handles_;  // channels in recorded graphs
  std::size_t deferred_count_ = 0;
  std::string error_;  // first failure seen while completing requests, thrown after
  std::vector<int> indices_;
  std::vector<MPI_Status> completed_;  // MPI_Testsome's statuses, in completion order
  Intranode intranode_;
  std::unique_ptr<detail::IntranodeRings> rings_;  // null without ring or peer on the node
  std::vector<RingPeer> ring_peers_;               // by peer rank, with rings_
  std::size_t ring_in_flight_ = 0;                 // posted ring receives and blocked sends
  std::size_t ring_blocked_ = 0;                   // blocked ring sends
};

}  // namespace tessera::detail
