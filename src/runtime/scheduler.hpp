#pragma once
// The engine behind Runtime: dependency analysis, ready queues, workers and waits.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/owned_counter.hpp"
#include "runtime/recorded_graph.hpp"
#include "runtime/task.hpp"
#include "runtime/work_stealing_deque.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera::detail {

struct alignas(64) Worker {
  explicit Worker(int index, std::uint64_t seed) : index(index), rng(seed + index) {}
  // A thread with nothing to run says so (`looking`); a thread that makes a task ready
  // hands it to such a thread's mailbox rather than its own deque. At sub-microsecond
  // granularity a task pushed on the deque is popped back by its owner before a thief
  // can take it, so both tasks of a step would run on one thread.
  alignas(64) std::atomic<Task*> mailbox{nullptr};
  std::atomic<bool> looking{false};
  // A replayed task this thread waits for (kClaimed set in its `pending`): the thread
  // that counts it down to zero leaves it here instead of handing it over.
  Task* claim = nullptr;
  // Fixed-schedule replays this worker ran its share of (Scheduler::fixed_generation_).
  std::uint64_t fixed_replays_joined = 0;
  OwnedCounter bodies_run;  // tasks whose body returned on this thread
  // When this thread's last timed work ended (obs ticks): a task body (stamped only for
  // an observer taking kObserveExecuted) or the lane's handling of finished operations
  // (0 after a lane call that handled none). A task run straight after begins then.
  std::int64_t stamp_ticks = 0;
  OwnedCounter completed;  // tasks finished (successors released) on this thread
  WorkStealingDeque<Task*> high;
  WorkStealingDeque<Task*> normal;
  int index;
  std::mt19937_64 rng;
};

class Scheduler {
 public:
  explicit Scheduler(const RuntimeOptions& options);
  ~Scheduler();

  Handle create_handle(std::string name, std::shared_ptr<Runtime::ReductionOps> ops);
  Task* new_task(const char* name, const TaskAttributes& attributes);
  void enqueue(Task* task, std::span<const Access> accesses);
  /// Runs a body that cannot hold its completion at once, without a task node, if it
  /// would run inline at submission anyway and all its handles are idle; false (nothing
  /// done, the caller submits it as a task) otherwise. Defined in run_at_submission.hpp.
  bool run_at_submission(const char* name, std::span<const Access> accesses,
                         const TaskAttributes& attributes, void (*invoke)(void*), void* body);
  /// Collects the batch's ready tasks to hand them to the queues at once, which saves
  /// waking thieves per task; with one thread there are none, so tasks take the usual
  /// path (and may run at submission).
  void begin_batch() { batching_ = !options_.sequential && options_.threads > 1; }
  void end_batch();

  void wait_all();
  void wait_for(HandleState* handle);
  void complete(Task* task);

  /// Runtime::begin_recording, end_recording, recording and replay.
  void begin_recording();
  std::shared_ptr<const RecordedGraph> end_recording();
  bool recording() const { return recording_ != nullptr; }
  void replay(const RecordedGraph& graph, std::int64_t first, std::int64_t count);

  /// Runtime::compute_timing.
  std::string compute_timing() const {
    return compute_model_ ? compute_model_->description() : "measured";
  }

  void set_observer(Observer* observer) {
    observer_ = observer;
    observe_ = observer ? observer->events() : 0u;
  }
  void set_progress_engine(ProgressEngine* engine) { engine_ = engine; }
  void set_cost_table(CostTable* table) { costs_ = table; }
  void set_submission_cost_slot(std::int32_t slot) { submission_cost_slot_ = slot; }
  /// A task's cost slot: its own, else the one set for submissions.
  std::int32_t cost_slot_of(const TaskAttributes& attributes) const {
    return attributes.cost_slot >= 0 ? attributes.cost_slot : submission_cost_slot_;
  }
  std::uint64_t tasks_completed() const;
  std::uint64_t bodies_run() const;
  std::uint64_t tasks_submitted() const { return submitted_; }
  void describe_waiting(std::ostream& out) const;

  static void* reduction_slot(Task* task, HandleState* handle);

  /// Ready tasks per thread queued on the submitter beyond which a new ready task runs
  /// inline at submission.
  static constexpr std::int64_t kInlineThreshold = 64;
  /// Rounds an idle worker yields its core (after spinning) before it sleeps.
  static constexpr int kYieldRounds = 64;
  /// Idle spin used when the runtime has more threads than the machine has cores.
  static constexpr int kOversubscribedSpinRounds = 64;
  /// Sleep between polls of a passive main thread that waits with nothing to run.
  static constexpr std::chrono::microseconds kPassivePoll{20};
  /// Rounds of stealing a thread tries while high-priority tasks are counted as queued
  /// before it looks for normal work (find_task).
  static constexpr int kHighStealRounds = 64;

 private:
  /// Runs tasks and drives the progress engine on the main thread until done();
  /// defined in wait_until.hpp.
  template <class Pred>
  void wait_until(Pred done);
  /// Waits until `target` task bodies have run (sequential mode's wait per task).
  void wait_for_bodies(std::uint64_t target);
  bool on_main_thread() const;
  /// The calling thread's worker in this scheduler, or nullptr for a foreign thread.
  Worker* current_worker() const;
  void worker_loop(int index);
  Task* find_task(Worker& self);
  /// find_task for a thread that may hold a claim: the claimed task once it is ready,
  /// else any other work, for which the claim is given up.
  Task* find_task_or_claimed(Worker& self) {
    if (!self.claim) return find_task(self);
    if ((self.claim->pending.load(std::memory_order_acquire) & ~kClaimed) == 0) {
      return std::exchange(self.claim, nullptr);
    }
    Task* t = find_task(self);
    if (t) give_up_claim(self);
    return t;
  }
  /// A replayed task's `pending` bit set by the thread that claimed it.
  static constexpr int kClaimed = 1 << 30;
  /// Claims `task` (counted down, still waiting for others) for `self` to run once ready;
  /// nothing if it became ready meanwhile (its last predecessor queued it).
  void claim(Task* task, Worker& self);
  /// Gives up `self`'s claim; a claimed task that became ready meanwhile is queued.
  void give_up_claim(Worker& self);
  /// Hands `task` to another thread that is looking for work; false if none takes it.
  bool hand_to_idle(Task* task, const Worker& self);
  /// Adds `delta` to a counter other threads may update too (a task's `pending` or
  /// `holds`, a queue length) and returns the value it had. With one thread nobody else
  /// touches it, so no locked instruction is needed.
  int add_shared(std::atomic<int>& counter, int delta) {
    if (single_thread_) {
      const int old = counter.load(std::memory_order_relaxed);
      counter.store(old + delta, std::memory_order_relaxed);
      return old;
    }
    return counter.fetch_add(delta, std::memory_order_acq_rel);
  }
  int decrement(std::atomic<int>& counter) { return add_shared(counter, -1); }
  /// Whether the observer wants callbacks that describe tasks (TaskInfo), not only the
  /// time stamps of on_executed or the names of on_counted.
  bool describes_tasks() const {
    return (observe_ & ~unsigned{kObserveExecuted | kObserveCounted}) != 0;
  }
  /// Queues a main-thread task (communication) where only the main thread takes it.
  void push_main_queue(Task* task) {
    std::lock_guard<SpinLock> lock(main_queue_lock_);
    main_queue_.push_back(task);
    add_shared(main_queue_size_, 1);
  }
  /// Pushes a ready task on `self`'s own deque for its priority.
  void push_local(Task* task, Worker& self);
  /// Marks `self` as looking for work or not (written only on a change).
  static void set_looking(Worker& self, bool on) {
    if (self.looking.load(std::memory_order_relaxed) != on) {
      self.looking.store(on, std::memory_order_relaxed);
    }
  }
  Task* steal_from_others(Worker& self, bool high);
  /// The shared queue of ready ordered tasks (TaskAttributes::order), smallest key first.
  void push_ordered(Task* task);
  Task* pop_ordered();
  /// Heap order of ordered_: `a` runs after `b` (larger key, or equal key submitted later).
  static bool comes_after(const Task* a, const Task* b) {
    return a->order_key != b->order_key ? a->order_key > b->order_key : a->id > b->id;
  }
  /// Runs a ready task; returns a released successor to run next on this worker.
  /// `straight_after`: the thread did nothing but schedule since its last timed work ended
  /// (Worker::stamp_ticks), so the task is stamped as beginning then: one clock read per
  /// task, not two.
  Task* run(Task* task, Worker& self, bool straight_after = false);
  /// Runs a task's body (with its observer calls), capturing what it throws.
  void execute_body(Task* task, Worker& self, bool straight_after = false);
  /// One call of the progress engine (main thread); its lane stamp becomes `self`'s.
  LaneProgress progress_lane(Worker& self, bool blocking = false) {
    const LaneProgress lane = blocking ? engine_->progress_blocking() : engine_->progress();
    self.stamp_ticks = lane.handled_to;
    return lane;
  }
  /// Fills the task's access records from `accesses`, merging repeated handles; returns
  /// their count. Throws (the task untouched otherwise) on an invalid access list.
  std::uint32_t build_records(Task* task, std::span<const Access> accesses);
  /// Whether a task ready now should run inline at submission (sequential mode, or the
  /// queues are deep enough that running it costs no parallelism).
  bool should_run_inline(Priority priority, bool main_only, bool ordered) const {
    if (main_only) return false;  // communication tasks hold; they go through the lane
    if (options_.sequential) return true;
    if (ordered) return false;  // it waits for its key's turn
    // Throttle: with this much queued work, running the task now costs no parallelism
    // and keeps the queues (and memory) bounded, as libgomp does beyond 64 tasks/thread.
    return priority == Priority::normal && main_->normal.size() >= inline_threshold_;
  }
  /// Runs a task at once if nothing is pending on any of its handles, without building
  /// access groups for it; false (nothing done) otherwise.
  bool try_run_inline(Task* task);
  /// run_at_submission's body run with the observer's callbacks, the task described as
  /// it would be with a node.
  void run_observed(std::uint64_t id, const char* name, std::span<const Access> accesses,
                    const TaskAttributes& attributes, void (*invoke)(void*), void* body);
  /// Adds a body's elapsed ticks to its cost slot, if it names one and a table is attached.
  void charge_cost(std::int32_t slot, int worker, std::int64_t ticks, std::int64_t work) {
    if (costs_ && slot >= 0) costs_->add(worker, slot, ticks, work > 0 ? work : 1);
  }
  /// run_at_submission's body run, capturing what it throws.
  void run_body(const char* name, const TaskAttributes& attributes, void (*invoke)(void*),
                void* body);
  /// Accesses an observer's description of a task holds on the stack; a task running
  /// at submission without a node may have no more when observed.
  static constexpr std::size_t kMaxDescribedAccesses = 16;
  /// A group from the pool for one access of `kind`, numbered `seq`, not yet ready.
  Group* new_group(std::uint64_t seq, AccessMode kind);
  /// Makes `group` a fresh, not yet ready group for one access of `kind`, numbered `seq`.
  static void reset_group(Group& group, std::uint64_t seq, AccessMode kind);
  /// For an idle handle (lock held): its complete group, or a new one if it has none,
  /// becomes the ready group of one access of `kind`, numbered `seq`.
  Group* restart_idle_chain(HandleState& handle, std::uint64_t seq, AccessMode kind);
  /// Appends the task's accesses to their handles' group chains; true if any must wait.
  bool link_records(Task* task);
  /// Releases a finished task's accesses; returns an immediate successor if `self`.
  Task* finish(Task* task, Worker& self, bool want_immediate);
  /// finish for an instance of a fixed-schedule replay: publishes its node's completed
  /// count; the threads whose instances wait for it see the count.
  void finish_fixed(Task* task, Worker& self);
  /// finish for a replayed task (balanced): counts down its successors' predecessors.
  Task* finish_replayed(Task* task, Worker& self, bool want_immediate);
  /// Keeps a submitted task as a node of the graph being recorded.
  void record(Task* task);
  struct ShareView;
  /// Runs `self`'s share of a fixed-schedule replay without queues: each iteration's
  /// share in the graph's order, each instance once the walk reaches it and it is ready.
  /// While the instance reached waits (for a message, say), later ready ones run. `wait`
  /// is the thread's waiting loop, `poll` one call of the progress engine (main thread).
  template <class Wait, class Poll>
  void run_share(Replay& replay, Worker& self, const Wait& wait, const Poll& poll);
  /// Runs a worker's share of the fixed-schedule replay the main thread published, if
  /// the worker has not yet; false if there is none.
  bool join_fixed_replay(Worker& self);
  /// Sets the counters of iteration m's instances (replay's main-thread loop).
  void arm(Replay& replay, std::int64_t m);
  /// Releases iteration m's nodes that have no predecessor in the iteration.
  void release(Replay& replay, std::int64_t m);
  void describe_replay(std::ostream& out) const;
  void release_access(AccessRecord& record, Task*& ready_list);
  void complete_group(HandleState& handle, Group* group, Task*& ready_list);
  /// Reports `task` ready to the observer and queues it (queue_ready).
  void make_ready(Task* task, Worker& self);
  /// Queues a ready task: the main queue for main-thread tasks, else a looking thread's
  /// mailbox, else `self`'s deque.
  void queue_ready(Task* task, Worker& self);
  /// Queues the ready tasks except an immediate successor for `self` (when `immediate`
  /// is given); true if it queued any, which also woke a sleeping main thread.
  bool dispatch_ready(Task* ready_list, Worker* self, Task** immediate);
  void wake_workers();
  /// Wakes the main thread if it sleeps in a wait (a no-op on the main thread).
  void notify_main();
  /// notify_main's wake, for a caller that has just issued a seq_cst fence.
  void wake_main_after_fence();
  void record_error(const char* task_name, std::exception_ptr error);
  void rethrow_error();
  void check_hang(std::uint64_t& last_progress, std::chrono::steady_clock::time_point& since);
  /// Tells the observer `task` was submitted, with the accesses of `accessor` (the task
  /// itself, or the recorded node a replayed task is an instance of).
  void report_on_submit(Task* task, const Task& accessor);
  TaskInfo info_of(Task* task, std::span<AccessInfo> scratch) const;

  RuntimeOptions options_;
  // TESSERA_COMPUTE_CALIBRATE / TESSERA_COMPUTE_MODEL, or none (bodies timed as they run).
  std::unique_ptr<ComputeHook> compute_model_;
  bool single_thread_ = false;  // one thread: no thieves, no contention
  std::thread::id main_thread_;
  std::vector<std::unique_ptr<Worker>> workers_;
  Worker* main_ = nullptr;             // workers_[0], the submitting thread's
  std::int64_t inline_threshold_ = 0;  // kInlineThreshold x threads
  std::vector<std::thread> threads_;

  SpinLock main_queue_lock_;  // held for a push or a pop only
  std::deque<Task*> main_queue_;
  std::atomic<int> main_queue_size_{0};

  std::uint64_t submitted_ = 0;  // main thread only
  std::atomic<int> high_queued_{0};
  // Ready ordered tasks of every thread: one queue, so that the smallest key runs first
  // wherever it became ready. Ordered tasks are coarse (stencil sweeps), so one lock
  // costs little beside them.
  SpinLock ordered_lock_;
  std::vector<Task*> ordered_;
  std::atomic<int> ordered_queued_{0};

  alignas(64) std::atomic<std::uint32_t> epoch_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<int> started_{0};  // worker threads that began their loop
  std::atomic<bool> stop_{false};
  std::mutex main_sleep_mutex_;
  std::condition_variable main_sleep_cv_;
  std::atomic<bool> main_sleeping_{false};

  Observer* observer_ = nullptr;
  unsigned observe_ = 0;  // observer_->events(), or 0 without an observer
  ProgressEngine* engine_ = nullptr;
  CostTable* costs_ = nullptr;              // Runtime::set_cost_table
  std::int32_t submission_cost_slot_ = -1;  // Runtime::set_submission_cost_slot

  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::string error_task_;
  std::atomic<bool> failed_{false};

  std::deque<HandleState> handles_;
  FreeList<Task> task_pool_;
  FreeList<Group> group_pool_;
  bool batching_ = false;
  Task* batch_ready_ = nullptr;               // chained through next_free while batching
  std::unique_ptr<RecordedGraph> recording_;  // while recording
  Replay* replay_ = nullptr;                  // while replaying (for hang reports)
  ReplayStorage replay_storage_;              // the arrays of every replay
  // A fixed-schedule replay for the workers to join: the generation counts them.
  std::atomic<Replay*> fixed_replay_{nullptr};
  std::atomic<std::uint64_t> fixed_generation_{0};
};

}  // namespace tessera::detail
