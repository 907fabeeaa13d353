#pragma once
// Task-aware MPI (layer `comm`): communication as tasks whose completion is bound to
// their MPI requests, driven by the rank's main thread.
//
// Threading contract: MPI is initialized with MPI_THREAD_FUNNELED (MPI_THREAD_SINGLE
// when the process has no other thread) and only the main thread calls MPI.
// Communication tasks are main-thread-only tasks: when one becomes ready, the main
// thread runs its body, which *posts* the operation and holds the task; the
// communication lane (Comm::progress, run by the main thread between tasks and while
// waiting) tests outstanding requests with MPI_Testsome and completes the tasks whose
// requests finished, releasing their successors. No thread ever blocks inside MPI, so
// no schedule of send and receive tasks can deadlock.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tessera/comm/exact_sum.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {

namespace detail {
class IntranodeRings;
}

/// A contiguous range of MPI tags reserved for one purpose (halo exchange, load
/// balancing, ...). Allocated identically on every rank, so tags match across ranks.
class TagSpace {
 public:
  TagSpace() = default;
  TagSpace(std::string purpose, int base, int count)
      : purpose_(std::move(purpose)), base_(base), count_(count) {}
  /// The i-th tag of the space; throws std::out_of_range naming the purpose if i is
  /// outside [0, count).
  int tag(std::int64_t i) const;
  int base() const { return base_; }
  int count() const { return count_; }
  const std::string& purpose() const { return purpose_; }

 private:
  std::string purpose_;
  int base_ = 0;
  int count_ = 0;
};

/// One MPI operation as the observers see it.
struct CommEvent {
  enum class Kind : std::uint8_t { send, recv, allreduce, barrier, custom };
  Kind kind;
  int peer;  ///< -1 for collectives
  int tag;
  std::size_t bytes;
  std::uint64_t id;  ///< per-rank operation counter
  const char* name;  ///< name of the task that posted it
  /// When it was posted, in obs::fast_ticks units (src/obs/tick_clock.hpp): observers
  /// time the request from it without a clock read or lookup of their own. A post from
  /// a task body carries the body's start stamp when the runtime took one.
  std::int64_t posted_ticks;
  /// When the lane found it complete, same units; set for on_complete only, and only
  /// while observers are attached (requests finished by one poll share one stamp).
  std::int64_t completed_ticks = 0;
};

/// "send", "recv", "allreduce", "barrier" or "custom".
std::string_view to_string(CommEvent::Kind kind);

/// Watches MPI operations (tracing, statistics). Called on the main thread only.
class CommObserver {
 public:
  virtual ~CommObserver() = default;
  /// Whether on_post is wanted; read once, when the observer is added. One that needs
  /// only finished operations (each event carries its post time) saves a call per post.
  virtual bool wants_posts() const { return true; }
  virtual void on_post(const CommEvent& event) = 0;
  virtual void on_complete(const CommEvent& event) = 0;
  /// Time the main thread spent completing finished requests in the lane, per call, in
  /// cycle-counter ticks (obs::fast_ticks units: cheap enough to read per completion).
  /// Polls that find nothing finished are waiting, not lane time.
  virtual void on_lane_time(std::int64_t ticks) = 0;
};

/// Totals kept by the lane.
struct CommStats {
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t collectives = 0;
  std::uint64_t ring_messages_sent = 0;  ///< of messages_sent, those sent through a ring
  double wait_s = 0;  ///< main-thread time spent waiting with requests in flight and no task to run
};

/// How messages between ranks of one node travel.
enum class Intranode : std::uint8_t {
  /// Messages of up to 1008 bytes through tessera's shared-memory rings (one per pair
  /// of ranks, src/comm/intranode_rings.hpp), larger ones through MPI.
  rings,
  /// Every message through MPI.
  mpi,
};

/// "rings" or "mpi".
std::string_view to_string(Intranode intranode);

/// The communication layer of one rank. Create after the Runtime, on the main thread;
/// it registers itself as the runtime's progress engine.
class Comm : public ProgressEngine {
 public:
  /// Collective over `comm` (maps the node's rings unless `intranode` is mpi).
  Comm(Runtime& runtime, MPI_Comm comm, Intranode intranode = Intranode::rings);
  /// Waits for every task, then unmaps the rings (local: no other rank takes part).
  ~Comm() override;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm mpi() const { return comm_; }
  Runtime& runtime() { return runtime_; }
  /// The path messages to ranks on this node take.
  Intranode intranode() const { return intranode_; }

  /// Reserves `count` consecutive tags for `purpose`. Must be called in the same order
  /// on every rank. Throws std::runtime_error naming the purpose and MPI_TAG_UB when the
  /// tag space is exhausted.
  TagSpace allocate_tags(const std::string& purpose, int count);

  /// Submits a send task: reads `h`; sends `bytes` bytes at `data` to `peer` with `tag`.
  /// The buffer must stay valid until the task completes. Main thread only.
  void isend(Handle h, const void* data, std::size_t bytes, int peer, int tag,
             TaskAttributes attributes = {}, const char* name = "isend");
  /// As above, for a message assembled from several data (e.g. aggregated halo buffer
  /// sections): the task has exactly `accesses`.
  void isend(std::span<const Access> accesses, const void* data, std::size_t bytes, int peer,
             int tag, TaskAttributes attributes = {}, const char* name = "isend");
  /// Submits a receive task: writes `h`; receives exactly `bytes` bytes into `data`.
  void irecv(Handle h, void* data, std::size_t bytes, int peer, int tag,
             TaskAttributes attributes = {}, const char* name = "irecv");
  /// As above, with the task's accesses given explicitly.
  void irecv(std::span<const Access> accesses, void* data, std::size_t bytes, int peer, int tag,
             TaskAttributes attributes = {}, const char* name = "irecv");
  /// Submits a reproducible sum: readwrite on `h`; every rank's *sum is replaced by the
  /// exact global sum (bitwise identical for any number of ranks and arrival order).
  void iallreduce_sum(Handle h, ExactSum* sum, TaskAttributes attributes = {});
  /// Submits an all-reduce of `count` items of `type` with `op` in place at `data`
  /// (readwrite on `h`). Reproducible only for exact ops (integer sums, min, max).
  void iallreduce(Handle h, void* data, int count, MPI_Datatype type, MPI_Op op,
                  TaskAttributes attributes = {});
  /// Submits a barrier task (readwrite on `h`) that completes when all ranks reached it.
  void ibarrier(Handle h, TaskAttributes attributes = {});

  /// Escape hatch: called from the body of a main-thread-only task that posted its own
  /// non-blocking MPI operation; the task completes when `request` completes. The task
  /// must have been submitted with comm_attributes() (std::logic_error otherwise, with
  /// `request` left to the caller).
  void bind(TaskContext& ctx, MPI_Request request, CommEvent::Kind kind, int peer, int tag,
            std::size_t bytes);

  /// Operations whose posting waits for an earlier operation of the same channel
  /// (kind, peer, tag) to be posted first; see the ordering rule in comm.cpp.
  std::size_t deferred_posts() const { return deferred_count_; }

  /// Attributes for a communication task (main-thread-only, given priority and tags).
  static TaskAttributes comm_attributes(TaskAttributes a) {
    a.main_thread_only = true;
    return a;
  }

  LaneProgress progress() override { return poll(false); }
  /// Waits in MPI_Waitsome when only sends and receives are in flight (SimGrid 3.32's
  /// Waitsome takes a pending non-blocking collective for a finished one); else polls.
  LaneProgress progress_blocking() override { return poll(true); }
  std::uint64_t completions() const override { return completions_; }
  void describe(std::ostream& out) const override;
  void idle_wait(std::int64_t ticks) override { idle_ticks_ += ticks; }

  /// Counters so far; wait_s is converted from ticks here (after at least 1 ms of run).
  CommStats stats() const;
  /// Adds an observer (not owned). Main thread only.
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
  /// One round of the lane: completes finished requests, waiting for one if `block`.
  LaneProgress poll(bool block);
  struct Pending {
    CompletionToken token;
    CommEvent event;
    ExactSum* sum = nullptr;                             // iallreduce_sum: result destination
    std::unique_ptr<std::vector<std::int64_t>> scratch;  // iallreduce_sum: limbs in flight
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
  bool progress_rings(std::int64_t* ticks);
  /// A ring message's payload reaches the receive it matched, which completes.
  void receive_from_ring(Pending& pending, void* data, std::span<const std::byte> payload);
  /// Hang report lines: the ring operations in flight and the messages no receive matched.
  void describe_rings(std::ostream& out, std::int64_t now) const;
  /// One hang report line for an operation in flight; `via` follows it.
  void describe_operation(std::ostream& out, const CommEvent& event, std::int64_t now,
                          std::string_view via) const;
  void track(MPI_Request request, Pending&& pending);
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
  std::int64_t reference_ticks_ = 0;  // obs::TickReference taken at construction
  std::int64_t reference_ns_ = 0;
  std::vector<CommObserver*> observers_;
  std::vector<CommObserver*> post_observers_;  // of observers_, those wanting on_post
  MPI_Datatype exact_type_ = MPI_DATATYPE_NULL;
  MPI_Op exact_op_ = MPI_OP_NULL;
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

}  // namespace tessera
