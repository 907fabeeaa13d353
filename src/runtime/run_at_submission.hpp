#pragma once
// The path of a task that runs at submission without a task node, inline in the one
// caller (Runtime::run_at_submission): it is the whole cost of most tasks once the
// throttle or sequential mode runs them at once, so every call saved counts.

#include "runtime/scheduler.hpp"
#include "tessera/base/tick_clock.hpp"

namespace tessera::detail {

inline bool Scheduler::run_at_submission(const char* name, std::span<const Access> accesses,
                                         const TaskAttributes& attributes, void (*invoke)(void*),
                                         void* body) {
  // Lists with reductions or invalid handles take the full path (rejected there), as do
  // lists longer than an observer's description of the task holds.
  if (batching_ || recording_ ||
      !should_run_inline(attributes.priority, attributes.main_thread_only,
                         attributes.order != TaskAttributes::kUnordered) ||
      (describes_tasks() && accesses.size() > kMaxDescribedAccesses)) {
    return false;
  }
  for (const Access& a : accesses) {
    if (!a.handle.valid() || a.mode == AccessMode::reduce || !is_idle(*a.handle.state())) {
      return false;
    }
  }
  // Idle handles stay as they are: their last group is complete, so wait_for finds
  // nothing to wait for, and the next access recycles the group (link_records).
  Worker& self = *main_;
  const std::uint64_t id = ++submitted_;
  if (costs_ && cost_slot_of(attributes) >= 0 && !(observe_ & kObserveExecuted)) {
    // Timed for the cost table only (an observer that stamps bodies charges it itself).
    const std::int64_t begin_ticks = base::fast_ticks();
    if (observe_) {
      run_observed(id, name, accesses, attributes, invoke, body);
    } else {
      run_body(name, attributes, invoke, body);
    }
    charge_cost(cost_slot_of(attributes), 0, base::fast_ticks() - begin_ticks, attributes.work);
  } else if (observe_) {
    run_observed(id, name, accesses, attributes, invoke, body);
  } else {
    run_body(name, attributes, invoke, body);
  }
  self.bodies_run.increment();
  self.completed.increment();
  if (options_.sequential) rethrow_error();
  return true;
}

inline void Scheduler::run_body(const char* name, const TaskAttributes& attributes,
                                void (*invoke)(void*), void* body) {
  // After a failure, bodies are skipped so the error surfaces quickly.
  if (failed_.load(std::memory_order_relaxed)) return;
  try {
    if (compute_model_ && attributes.work > 0) {
      compute_model_->run(name, attributes.work, attributes.work_variant, invoke, body);
    } else {
      invoke(body);
    }
  } catch (...) {
    record_error(name, std::current_exception());
  }
}

}  // namespace tessera::detail
