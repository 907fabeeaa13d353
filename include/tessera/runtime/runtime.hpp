#pragma once
// tessera's shared-memory data-flow engine (sequential task flow).
//
// One thread (the "main" thread, the one that constructed the Runtime) submits tasks in
// program order, each with the handles it accesses. The runtime derives RAW/WAR/WAW
// dependencies on the fly, runs ready tasks on a pool of work-stealing workers, and
// lets the main thread execute tasks while it waits. Results equal those of running
// every task inline in submission order (RuntimeOptions::sequential).

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/runtime/compute_hook.hpp"
#include "tessera/runtime/cost_table.hpp"
#include "tessera/runtime/detail/batch_body.hpp"
#include "tessera/runtime/detail/task_body.hpp"
#include "tessera/runtime/handle.hpp"
#include "tessera/runtime/observer.hpp"

namespace tessera {

namespace detail {
struct Task;
class Scheduler;
struct RecordedGraph;
}  // namespace detail

/// How Runtime::replay spreads an iteration graph's tasks over the threads.
enum class ReplaySchedule {
  /// Each recorded task runs on one thread, chosen when the replay starts (equal task
  /// counts per thread, a task on the thread of most of its predecessors); threads wait
  /// for predecessors by reading their completion counts, without queues. The least
  /// overhead per task, for iterations whose tasks take about equal time. A runtime with
  /// one thread always replays this way.
  fixed,
  /// Ready tasks go through the work-stealing queues, as submitted tasks do: more
  /// overhead per task, but tasks of uneven length balance over the threads.
  balanced,
};

/// What an idle thread does with its core (OpenMP's OMP_WAIT_POLICY, OpenMPI's
/// mpi_yield_when_idle).
enum class WaitPolicy {
  /// Spin, then yield, then sleep (workers); the main thread keeps polling while requests
  /// are in flight. The lowest latency when every thread has a core of its own.
  active,
  /// Give the core away quickly: a short spin, and the main thread sleeps briefly between
  /// polls of requests in flight. For machines shared with other jobs (e.g. a test suite
  /// running several MPI jobs on few cores), where a spinning thread keeps the one with
  /// work off its core. Same results, later notice of completions (tens of microseconds).
  passive,
  /// The environment's choice, as OMP_WAIT_POLICY is OpenMP's: TESSERA_WAIT_POLICY=active
  /// or passive; active when unset. The runtime's constructor throws
  /// std::invalid_argument for any other value.
  environment,
};

/// The policy TESSERA_WAIT_POLICY names (active when unset or empty); throws
/// std::invalid_argument naming the variable and the allowed values otherwise.
WaitPolicy wait_policy_from_environment();

/// How a runtime runs tasks.
struct RuntimeOptions {
  /// Total threads including the submitting thread (2 = main + 1 worker). >= 1.
  int threads = 1;
  /// Run every task inline at submission, in program order (the reference semantics).
  bool sequential = false;
  /// Seed for the randomized victim order of work stealing; 0 = round-robin order.
  std::uint64_t steal_seed = 0;
  /// Seconds without any task or request completing before a wait reports a hang;
  /// 0 disables the watchdog.
  double hang_timeout_s = 60.0;
  /// Called on the main thread with the diagnostic text when a hang is detected. The
  /// default prints it to stderr and aborts the process.
  std::function<void(const std::string&)> on_hang;
  /// Rounds an idle thread polls (pause instruction, queues, communication lane) before
  /// it starts yielding its core and then sleeping. Long spins give the lowest latency
  /// when every thread has a core; when the machine's cores are oversubscribed (see
  /// threads_on_machine) the runtime shortens it, so the thread that has work runs.
  int idle_spin_rounds = 1 << 16;
  /// Threads of the whole job on this machine when other processes (MPI ranks on the
  /// node) run beside this runtime; 0 counts only this runtime's own threads.
  int threads_on_machine = 0;
  /// Whether idle threads keep their cores (see WaitPolicy). By default the environment
  /// decides, so that a harness running many jobs on few cores (the test suite) sets it
  /// once for every program and test.
  WaitPolicy wait_policy = WaitPolicy::environment;
  /// How Runtime::replay spreads tasks over the threads.
  ReplaySchedule replay_schedule = ReplaySchedule::fixed;
  /// Makes the hook that times or models task bodies (compute_hook.hpp), called once when
  /// the runtime starts; nullptr = bodies are measured as they run. Session passes the comm
  /// layer's compute_model_from_environment.
  ComputeHookFactory compute_hook = nullptr;
};

/// Per-task options at submission. Implicitly constructible from a Priority.
struct TaskAttributes {
  Priority priority = Priority::normal;
  TaskTags tags{};
  /// Run only on the main thread (communication tasks: only it may call MPI).
  bool main_thread_only = false;
  /// Which kind of body of this name it is when kinds cost differently for the same work
  /// (a halo face's axis: an x face is strided, a z face one plane); modelled compute
  /// calibrates and charges per (name, variant, work). 0 when all are alike. One byte, in
  /// the padding after main_thread_only: a larger field made every submission slower.
  std::uint8_t work_variant = 0;
  /// The slot of the runtime's CostTable (Runtime::set_cost_table) that this body's
  /// elapsed time and work are added to, e.g. the local index of the block it works on;
  /// -1 = none. Four bytes, in the padding before `order`: the struct does not grow.
  /// A recorded task keeps its slot in every replayed iteration.
  std::int32_t cost_slot = -1;
  /// A key that orders this task among the other ready tasks that have one: of those, the
  /// runtime starts the one with the smallest key first (ties in submission order), after
  /// communication, high-priority and unordered ready tasks. A stencil gives its sweeps
  /// keys along a wavefront so that a block's next iteration runs while its data are still
  /// in cache (WavefrontOrder). Ordered tasks never run inline at submission.
  static constexpr std::int64_t kUnordered = std::numeric_limits<std::int64_t>::min();
  std::int64_t order = kUnordered;
  /// The body's work in units of the caller's choosing (cells swept, values packed); 0 =
  /// unstated. Only simulated runs use it: with modelled compute (docs/scaling-sim.md) a
  /// body with work > 0 is charged from a calibration of its name and work instead of
  /// being timed. Bodies that call MPI must leave it 0.
  std::int64_t work = 0;
  TaskAttributes() = default;
  TaskAttributes(Priority p) : priority(p) {}  // NOLINT: implicit by design
  TaskAttributes(Priority p, TaskTags t, bool main_only = false)
      : priority(p), tags(t), main_thread_only(main_only) {}
};

/// Keeps a task from completing after its body returned; see TaskContext::hold.
class CompletionToken {
 public:
  CompletionToken() = default;
  explicit CompletionToken(detail::Task* task) : task_(task) {}
  CompletionToken(CompletionToken&& o) noexcept : task_(std::exchange(o.task_, nullptr)) {}
  CompletionToken& operator=(CompletionToken&& o) noexcept {
    task_ = std::exchange(o.task_, nullptr);
    return *this;
  }
  CompletionToken(const CompletionToken&) = delete;
  CompletionToken& operator=(const CompletionToken&) = delete;
  bool valid() const { return task_ != nullptr; }
  detail::Task* release() { return std::exchange(task_, nullptr); }

 private:
  detail::Task* task_ = nullptr;
};

/// What a running task may ask of the runtime. Passed to bodies taking `TaskContext&`.
class TaskContext {
 public:
  TaskContext(detail::Task* task, int worker, std::int64_t begin_ticks = 0)
      : task_(task), worker_(worker), begin_ticks_(begin_ticks) {}
  /// 0-based index of the executing thread (0 = main thread).
  int worker() const { return worker_; }
  /// When the body started, in base::fast_ticks units (see Observer::on_executed), if an
  /// observer had the runtime stamp task bodies; 0 otherwise. Lets the communication
  /// layer stamp the operations a body posts without reading the clock again.
  std::int64_t begin_ticks() const { return begin_ticks_; }
  /// The iteration a replayed task belongs to (Runtime::replay); 0 for other tasks.
  std::int64_t iteration() const;
  const char* name() const;
  const TaskTags& tags() const;
  /// Whether the task was submitted to run on the main thread only
  /// (TaskAttributes::main_thread_only).
  bool main_thread_only() const;
  /// Defers this task's completion (and the release of its successors) until the token
  /// is passed to Runtime::complete. Used to bind MPI requests to a task (TAMPI Iwait).
  CompletionToken hold();
  /// This task's private slot for its `reduce` access on `h` (identity-initialized).
  template <class T>
  T& reduction_slot(Handle h) {
    return *static_cast<T*>(reduction_slot_ptr(h));
  }

 private:
  void* reduction_slot_ptr(Handle h);
  detail::Task* task_;
  int worker_;
  std::int64_t begin_ticks_;
};

/// What one ProgressEngine::progress() call did.
struct LaneProgress {
  bool in_flight = false;  ///< operations remain in flight
  /// When the call's handling of finished operations began and ended, in base::fast_ticks
  /// units; both 0 if it handled none or times nothing. The main thread's wait for them
  /// ended at `handled_from`; a task it runs straight after begins at `handled_to`.
  std::int64_t handled_from = 0;
  std::int64_t handled_to = 0;
};

/// Something the main thread drives while it waits (the MPI communication lane).
class ProgressEngine {
 public:
  virtual ~ProgressEngine() = default;
  /// Advances outstanding operations. Called only on the main thread, between tasks and
  /// while waiting.
  virtual LaneProgress progress() = 0;
  /// Like progress(), but may block until an operation completes. Called instead of
  /// polling only in simulated runs (TESSERA_SMPI) when the main thread is the only thread
  /// and has nothing to run, so only a completion can make progress.
  virtual LaneProgress progress_blocking() { return progress(); }
  /// Monotone count of completed operations (for the hang watchdog).
  virtual std::uint64_t completions() const = 0;
  /// Appends a human description of what is still in flight (for hang reports).
  virtual void describe(std::ostream& out) const = 0;
  /// Told how long the main thread just spent polling with operations in flight and no
  /// task to run (time lost to waiting on communication), in cycle-counter ticks
  /// (base::fast_ticks units: reading them is cheap enough for every idle stretch).
  virtual void idle_wait(std::int64_t ticks) { (void)ticks; }
};

/// Thrown from a wait when a task threw; names the task and carries the original message.
class TaskError : public std::runtime_error {
 public:
  TaskError(const std::string& task_name, const std::string& what);
  const std::string& task_name() const { return task_name_; }

 private:
  std::string task_name_;
};

/// The tasks of one iteration of a loop, recorded once (Runtime::begin_recording /
/// end_recording) and replayed many times (Runtime::replay) without deriving their
/// dependencies again: the analysis a submission does is paid once per graph, not per
/// task, which is what makes tasks of a microsecond or less worth running as tasks.
/// Cheap to copy (copies share the recording). Valid while its runtime lives.
class IterationGraph {
 public:
  IterationGraph() = default;
  /// Recorded tasks per iteration.
  std::size_t size() const;
  bool empty() const { return size() == 0; }
  const detail::RecordedGraph* recorded() const { return recorded_.get(); }

 private:
  friend class Runtime;
  explicit IterationGraph(std::shared_ptr<const detail::RecordedGraph> recorded)
      : recorded_(std::move(recorded)) {}
  std::shared_ptr<const detail::RecordedGraph> recorded_;
};

/// The data-flow engine. Not copyable. Submission and waits only from the main thread.
class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// Registers a datum. Main thread only. The handle lives as long as the runtime.
  Handle create_handle(std::string name);

  /// Registers a datum that `reduce` tasks accumulate into: every reducing task gets a
  /// private `T{}` slot (TaskContext::reduction_slot<T>); when the group of consecutive
  /// reducers completes, the slots are folded into *target with combine(target, slot) in
  /// submission order, so the result is the same for any thread count or schedule.
  template <class T, class Combine>
  Handle create_reduction_handle(std::string name, T* target, Combine combine) {
    auto ops = std::make_shared<ReductionOps>();
    ops->make_slot = [] { return static_cast<void*>(new T{}); };
    ops->fold = [target, combine](void* slot) { combine(*target, *static_cast<T*>(slot)); };
    ops->drop_slot = [](void* slot) { delete static_cast<T*>(slot); };
    return create_handle_with_reduction(std::move(name), std::move(ops));
  }

  /// Submits a task: `body` (callable as f() or f(TaskContext&)) runs once all earlier
  /// tasks with conflicting accesses completed. Main thread only, never from a task body.
  template <class F>
  void submit(const char* name, std::initializer_list<Access> accesses, F&& body,
              TaskAttributes attributes = {}) {
    submit(name, std::span<const Access>(accesses.begin(), accesses.size()), std::forward<F>(body),
           attributes);
  }
  template <class F>
  void submit(const char* name, std::span<const Access> accesses, F&& body,
              TaskAttributes attributes = {}) {
    using Body = std::remove_reference_t<F>;
    if constexpr (std::is_invocable_v<Body&> && !std::is_invocable_v<Body&, TaskContext&>) {
      // A body without a TaskContext cannot hold its completion, so when it may run at
      // once it runs right here, without a task node or a stored copy of the body.
      const auto call = [](void* f) { (*static_cast<Body*>(f))(); };
      if (run_at_submission(name, accesses, attributes, call,
                            const_cast<void*>(static_cast<const void*>(std::addressof(body))))) {
        return;
      }
    }
    detail::Task* task = new_task(name, attributes);
    body_of(task).emplace(std::forward<F>(body));
    enqueue(task, accesses);
  }

  /// Submits `count` tasks of one loop at lower per-task cost: task i accesses
  /// accesses(i) (a range of Access) and runs body(i). Equivalent to `count` submits.
  template <class AccessFn, class Body>
  void submit_batch(const char* name, std::size_t count, AccessFn&& accesses, Body&& body,
                    TaskAttributes attributes = {}) {
    if (count == 0) return;
    using Shared = detail::SharedBatchBody<std::decay_t<Body>>;
    struct Loop {
      Runtime& runtime;
      Shared* shared;
      ~Loop() {
        runtime.end_batch();
        shared->release();
      }
    } loop{*this, Shared::create(std::forward<Body>(body))};
    begin_batch();
    for (std::size_t i = 0; i < count; ++i) {
      const auto& list = accesses(i);
      const std::span<const Access> span(std::data(list), std::size(list));
      std::pair<Shared*, std::size_t> item{loop.shared, i};
      const auto call = [](void* p) {
        auto* it = static_cast<std::pair<Shared*, std::size_t>*>(p);
        it->first->call(it->second);
      };
      if (run_at_submission(name, span, attributes, call, &item)) continue;
      detail::Task* task = new_task(name, attributes);
      body_of(task).emplace([use = typename Shared::Use(loop.shared), i] { use(i); });
      enqueue(task, span);
    }
  }

  /// Starts recording an iteration graph: until end_recording, submissions (including
  /// communication tasks) become nodes of the graph instead of running. Bodies are kept
  /// and called once per replayed iteration, possibly concurrently for different
  /// iterations, so they must not modify their captures; a body taking TaskContext&
  /// learns its iteration from TaskContext::iteration(). Reduce accesses are rejected.
  /// Main thread only.
  void begin_recording();
  /// Ends the recording and derives the graph's dependencies: within an iteration, and
  /// from one iteration to the next, exactly as submitting the tasks again would.
  IterationGraph end_recording();
  /// Whether submissions are being recorded.
  bool recording() const;
  /// Runs iterations first, ..., first + count - 1 of `graph`: the same as submitting its
  /// recorded tasks `count` times in order, iteration i's bodies seeing iteration() == i,
  /// but without the per-task analysis. Waits for earlier tasks first and returns when
  /// every replayed task completed; the main thread executes tasks and drives the
  /// progress engine meanwhile. Rethrows the first task exception. Main thread only.
  /// Unlike submission, a replay runs at most three iterations at once: a task whose
  /// completion is held (TaskContext::hold) until a task three or more iterations later
  /// runs never completes, and the hang watchdog reports it. RuntimeOptions::
  /// replay_schedule chooses how the tasks spread over the threads.
  void replay(const IterationGraph& graph, std::int64_t first, std::int64_t count);

  /// Waits until every submitted task completed; the main thread executes tasks and
  /// drives the progress engine meanwhile. Rethrows the first task exception.
  void wait_all();
  /// Waits until the last task submitted so far that writes (write, readwrite, reduce)
  /// `h` completed, and all accesses to `h` before it. Unrelated tasks are not awaited.
  void wait_for(Handle h);
  /// Releases a hold taken with TaskContext::hold. Any thread.
  void complete(CompletionToken token);

  /// Attaches an observer; nullptr detaches. Main thread only, while no task is in flight
  /// (before the first submit, or after wait_all).
  void set_observer(Observer* observer);
  /// Attaches the table that task bodies naming a cost slot (TaskAttributes::cost_slot) add
  /// their elapsed time to; nullptr detaches. Main thread only, while no task is in flight.
  /// Throws std::invalid_argument when the table has fewer threads than the runtime.
  void set_cost_table(CostTable* table);
  /// Tasks submitted (or recorded) from now on whose attributes name no cost slot get
  /// `slot` (-1: none again). Lets a framework charge whatever a callback submits for a
  /// block to that block without the callback knowing. Main thread only.
  void set_submission_cost_slot(std::int32_t slot);
  /// Attaches the engine the main thread drives while waiting; nullptr detaches.
  void set_progress_engine(ProgressEngine* engine);

  int threads() const { return options_.threads; }
  bool sequential() const { return options_.sequential; }
  const RuntimeOptions& options() const { return options_; }
  /// How task bodies are timed, for reports: "measured" (as they run), or, when set in the
  /// environment (docs/scaling-sim.md), "calibrating FILE" or "modelled from FILE" with
  /// how many of this rank's bodies were charged from the calibration and how many timed.
  std::string compute_timing() const;
  /// Tasks completed so far (monotone).
  std::uint64_t tasks_completed() const;
  /// Tasks submitted so far.
  std::uint64_t tasks_submitted() const;
  /// Describes tasks still waiting (name, tags, handles) for hang reports.
  void describe_waiting(std::ostream& out) const;

  struct ReductionOps {
    std::function<void*()> make_slot;
    std::function<void(void*)> fold;
    std::function<void(void*)> drop_slot;
  };

 private:
  Handle create_handle_with_reduction(std::string name, std::shared_ptr<ReductionOps> ops);
  detail::Task* new_task(const char* name, const TaskAttributes& attributes);
  static detail::TaskBody& body_of(detail::Task* task);
  void enqueue(detail::Task* task, std::span<const Access> accesses);
  bool run_at_submission(const char* name, std::span<const Access> accesses,
                         const TaskAttributes& attributes, void (*invoke)(void*), void* body);
  void begin_batch();
  void end_batch();

  RuntimeOptions options_;
  std::unique_ptr<detail::Scheduler> scheduler_;
};

}  // namespace tessera
