#pragma once
// The one interface through which tracing, statistics and the hang watchdog watch tasks.

#include <array>
#include <cstdint>
#include <span>

#include "tessera/runtime/handle.hpp"

namespace tessera {

/// Scheduling priority. `high` tasks run before `normal` ones whenever both are ready.
enum class Priority : std::uint8_t { normal = 0, high = 1 };

/// Up to four integer tags (block id, direction, ...) carried by a task for tracing.
struct TaskTags {
  std::array<std::int64_t, 4> values{};
  std::uint8_t count = 0;
  TaskTags() = default;
  TaskTags(std::initializer_list<std::int64_t> init);
};

/// One access as the observer sees it.
struct AccessInfo {
  std::uint64_t handle_id;
  AccessMode mode;
};

/// What an observer learns about a task. Valid only during the callback.
struct TaskInfo {
  std::uint64_t id;  ///< submission order, starting at 1 for each runtime
  const char* name;
  const TaskTags* tags;
  Priority priority;
  bool main_thread_only;
  std::span<const AccessInfo> accesses;
  /// Whether the task is an instance of a replayed IterationGraph; if so, `iteration` is
  /// its iteration (what TaskContext::iteration() returns). Its name, tags and accesses
  /// are the recorded node's.
  bool replayed = false;
  std::int64_t iteration = 0;
};

/// Receives task events. Callbacks may run concurrently on any worker (`worker` is the
/// 0-based worker index, 0 = the submitting thread) and must be thread-safe and short.
/// on_submit is called on the submitting thread, in submission order.
/// Callbacks an observer needs, as a bit set: the runtime skips the others, and with
/// them the work of describing the task.
enum ObserverEvents : unsigned {
  kObserveSubmit = 1u << 0,
  kObserveReady = 1u << 1,
  kObserveBegin = 1u << 2,
  kObserveEnd = 1u << 3,
  kObserveAll = kObserveSubmit | kObserveReady | kObserveBegin | kObserveEnd,
  /// on_executed, for observers that only time tasks; not part of kObserveAll.
  kObserveExecuted = 1u << 4,
  /// on_counted, for observers that only count tasks; not part of kObserveAll. Ignored
  /// with kObserveExecuted, whose calls count the tasks too.
  kObserveCounted = 1u << 5,
};

class Observer {
 public:
  virtual ~Observer() = default;
  /// The callbacks this observer wants; read once, when it is attached.
  virtual unsigned events() const { return kObserveAll; }
  virtual void on_submit(const TaskInfo& task) = 0;
  virtual void on_ready(const TaskInfo& task, int worker) = 0;
  virtual void on_begin(const TaskInfo& task, int worker) = 0;
  /// The task's body returned (its completion may still wait for bound requests).
  virtual void on_end(const TaskInfo& task, int worker) = 0;
  /// The body of task `name` ran on `worker` from `begin_ticks` to `end_ticks`, stamped by
  /// the runtime with base::fast_ticks, the library's cheap task clock (time-stamp-counter
  /// cycles where the counter is invariant across CPUs, else steady-clock nanoseconds; only
  /// differences are meaningful, converted by the library's observers). Only with kObserveExecuted:
  /// one call and no TaskInfo per task, where on_begin + on_end cost two of each. When the
  /// worker went straight from its previous task to this one, `begin_ticks` is that task's
  /// `end_ticks`: the scheduling between them (tens of ns) counts toward this task.
  virtual void on_executed(const char* /*name*/, int /*worker*/, std::int64_t /*begin_ticks*/,
                           std::int64_t /*end_ticks*/) {}
  /// The body of task `name` ran on `worker`. Only with kObserveCounted: one call per task
  /// and no clock read, for statistics that count tasks without timing them.
  virtual void on_counted(const char* /*name*/, int /*worker*/) {}
};

}  // namespace tessera
