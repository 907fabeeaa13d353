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
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "tessera/comm/exact_sum.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {

namespace detail {
class CommLane;
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
  /// When it was posted, in base::fast_ticks units (see Observer::on_executed): observers
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
  /// cycle-counter ticks (base::fast_ticks units: cheap enough to read per completion).
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
  /// of ranks, mapped by the ranks of a node together), larger ones through MPI.
  rings,
  /// Every message through MPI.
  mpi,
};

/// "rings" or "mpi".
std::string_view to_string(Intranode intranode);

/// The communication layer of one rank. Create after the Runtime, on the main thread; its
/// communication lane becomes the runtime's progress engine, which the main thread polls
/// between tasks and while it waits (no other thread calls MPI).
class Comm {
 public:
  /// Collective over `comm` (maps the node's rings unless `intranode` is mpi).
  Comm(Runtime& runtime, MPI_Comm comm, Intranode intranode = Intranode::rings);
  /// Waits for every task, then unmaps the rings (local: no other rank takes part).
  ~Comm();
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

  /// Operations so far whose posting waited for an earlier operation of the same channel
  /// (kind, peer, tag) to be posted first: operations of one channel are posted in
  /// submission order, so MPI matches them in that order whatever order they became ready.
  std::size_t deferred_posts() const;

  /// Attributes for a communication task (main-thread-only, given priority and tags).
  static TaskAttributes comm_attributes(TaskAttributes a) {
    a.main_thread_only = true;
    return a;
  }

  /// Counters so far; wait_s is converted from ticks here (after at least 1 ms of run).
  CommStats stats() const;
  /// Adds an observer (not owned). Main thread only.
  void add_observer(CommObserver* observer);

 private:
  Runtime& runtime_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  Intranode intranode_;
  // The operations in flight, their posting order and the rings, behind the library's
  // interface: this header stays free of them, and changing them recompiles no app code.
  std::unique_ptr<detail::CommLane> lane_;
};

}  // namespace tessera
