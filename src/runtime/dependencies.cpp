// Dependency analysis: how a submitted task's accesses join its handles' group chains,
// how finishing tasks release them, and the inline path that skips the chains when a
// task can run at once.
#include <fmt/format.h>

#include <ostream>
#include <stdexcept>
#include <vector>

#include "runtime/run_at_submission.hpp"
#include "tessera/base/tick_clock.hpp"

namespace tessera::detail {

namespace {

bool is_exclusive(AccessMode m) {
  return m == AccessMode::write || m == AccessMode::readwrite;
}

/// Folds two accesses of one task to the same handle into one.
AccessMode merge_modes(AccessMode a, AccessMode b, std::string_view handle) {
  if (a == b) return a;
  if (a == AccessMode::reduce || b == AccessMode::reduce) {
    throw std::invalid_argument(fmt::format(
        "task accesses handle '{}' as reduce and as {}: a reduce access cannot be combined", handle,
        to_string(a == AccessMode::reduce ? b : a)));
  }
  return AccessMode::readwrite;
}

}  // namespace

void Scheduler::run_observed(std::uint64_t id, const char* name, std::span<const Access> accesses,
                             const TaskAttributes& attributes, void (*invoke)(void*), void* body) {
  if (!describes_tasks()) {
    if (!(observe_ & kObserveExecuted)) {
      run_body(name, attributes, invoke, body);
      observer_->on_counted(name, 0);
      return;
    }
    const std::int64_t begin_ticks = base::fast_ticks();
    run_body(name, attributes, invoke, body);
    const std::int64_t end_ticks = base::fast_ticks();
    observer_->on_executed(name, 0, begin_ticks, end_ticks);
    charge_cost(cost_slot_of(attributes), 0, end_ticks - begin_ticks, attributes.work);
    return;
  }
  AccessInfo infos[kMaxDescribedAccesses];
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    infos[i] = AccessInfo{accesses[i].handle.id(), accesses[i].mode};
  }
  const TaskInfo info{
      id, name, &attributes.tags, attributes.priority, false, {infos, accesses.size()}};
  if (observe_ & kObserveSubmit) observer_->on_submit(info);
  if (observe_ & kObserveReady) observer_->on_ready(info, 0);
  if (observe_ & kObserveBegin) observer_->on_begin(info, 0);
  const std::int64_t begin_ticks = (observe_ & kObserveExecuted) ? base::fast_ticks() : 0;
  run_body(name, attributes, invoke, body);
  if (observe_ & kObserveExecuted) {
    const std::int64_t end_ticks = base::fast_ticks();
    observer_->on_executed(name, 0, begin_ticks, end_ticks);
    charge_cost(cost_slot_of(attributes), 0, end_ticks - begin_ticks, attributes.work);
  } else if (observe_ & kObserveCounted) {
    observer_->on_counted(name, 0);
  }
  if (observe_ & kObserveEnd) observer_->on_end(info, 0);
}

void Scheduler::enqueue(Task* task, std::span<const Access> accesses) {
  try {
    task->access_count = build_records(task, accesses);
  } catch (...) {
    // A rejected access list leaves no trace: the task is returned unsubmitted.
    task->body.reset();
    task->extra_records.reset();
    task_pool_.give(task);
    --submitted_;
    throw;
  }
  if (recording_) {
    record(task);
    return;
  }
  task->holds.store(1, std::memory_order_relaxed);
  task->held.store(false, std::memory_order_relaxed);
  const bool run_now =
      !batching_ && should_run_inline(task->priority, task->main_only, task->ordered);
  if (run_now && try_run_inline(task)) {
    if (options_.sequential) rethrow_error();
    return;
  }
  task->pending.store(1, std::memory_order_relaxed);  // guard until analysis is done
  const bool waited = link_records(task);
  if (observe_ & kObserveSubmit) report_on_submit(task, *task);
  // Drop the guard; whoever brings pending to zero makes the task ready. When no access
  // waited, no other thread knows the task, so no locked instruction is needed.
  if (!waited || decrement(task->pending) == 1) {
    if (batching_) {
      task->next_free = batch_ready_;
      batch_ready_ = task;
    } else if (run_now) {
      if (Task* next = run(task, *main_)) make_ready(next, *main_);
    } else {
      make_ready(task, *main_);
    }
  }
  if (options_.sequential) {
    // The task may wait behind a communication task still in flight.
    wait_for_bodies(submitted_);
    rethrow_error();
  }
}

std::uint32_t Scheduler::build_records(Task* task, std::span<const Access> accesses) {
  AccessRecord* recs = task->inline_records;
  if (accesses.size() > Task::kInlineAccesses) {
    task->extra_records = std::make_unique<AccessRecord[]>(accesses.size());
    recs = task->extra_records.get();
  }
  std::uint32_t n = 0;
  for (const Access& a : accesses) {
    if (!a.handle.valid()) throw std::invalid_argument("task access on an invalid handle");
    HandleState* hs = a.handle.state();
    // Merge repeated handles so a task never waits on itself.
    std::uint32_t j = 0;
    while (j < n && recs[j].handle != hs) ++j;
    if (j < n) {
      recs[j].mode = merge_modes(recs[j].mode, a.mode, hs->name);
      continue;
    }
    if (a.mode == AccessMode::reduce && !hs->reduction) {
      throw std::invalid_argument(fmt::format(
          "reduce access on handle '{}', which was not created as a reduction handle", hs->name));
    }
    recs[n] = AccessRecord{};
    recs[n].handle = hs;
    recs[n].mode = a.mode;
    recs[n].task = task;
    ++n;
  }
  return n;
}

bool Scheduler::try_run_inline(Task* task) {
  AccessRecord* recs = task->records();
  const std::uint32_t n = task->access_count;
  for (std::uint32_t i = 0; i < n; ++i) {
    // Reductions fold through groups.
    if (recs[i].mode == AccessMode::reduce || !is_idle(*recs[i].handle)) return false;
  }
  if (observe_ & kObserveSubmit) report_on_submit(task, *task);
  Worker& self = *main_;
  if (observe_ & kObserveReady) {
    AccessInfo scratch[1];
    observer_->on_ready(info_of(task, {scratch, 0}), 0);
  }
  execute_body(task, self);
  if (task->held.load(std::memory_order_relaxed)) {
    // The body bound its completion to something still running: give each access the
    // group it would have had, so later tasks wait for the completion as usual.
    for (std::uint32_t i = 0; i < n; ++i) {
      HandleState& h = *recs[i].handle;
      std::lock_guard<SpinLock> lock(h.lock);
      recs[i].group = restart_idle_chain(h, ++h.next_seq, recs[i].mode);
      if (is_exclusive(recs[i].mode)) h.last_writer_seq = recs[i].group->seq;
    }
    if (decrement(task->holds) == 1) finish(task, self, false);
    return true;
  }
  // As in run_at_submission, the idle handles keep their complete last group.
  task->extra_records.reset();
  task->access_count = 0;
  task_pool_.give_local(task);
  self.completed.increment();
  return true;
}

Group* Scheduler::new_group(std::uint64_t seq, AccessMode kind) {
  Group* g = group_pool_.take();
  reset_group(*g, seq, kind);
  return g;
}

Group* Scheduler::restart_idle_chain(HandleState& h, std::uint64_t seq, AccessMode kind) {
  // An idle handle's one complete group (first == last) is referred to by nobody else.
  Group* g = h.last;
  if (g) {
    reset_group(*g, seq, kind);
  } else {
    g = new_group(seq, kind);
    h.first = h.last = g;
  }
  g->ready = true;
  return g;
}

void Scheduler::reset_group(Group& g, std::uint64_t seq, AccessMode kind) {
  g.seq = seq;
  g.kind = kind;
  g.unfinished = 1;
  g.ready = false;
  g.next = nullptr;
  g.waiters = nullptr;
  g.reducers_head = g.reducers_tail = nullptr;
}

bool Scheduler::link_records(Task* task) {
  AccessRecord* recs = task->records();
  bool waited = false;
  for (std::uint32_t i = 0; i < task->access_count; ++i) {
    AccessRecord& r = recs[i];
    HandleState& h = *r.handle;
    const bool shareable = r.mode == AccessMode::read || r.mode == AccessMode::reduce;
    if (r.mode == AccessMode::reduce) r.reducer = new ReducerEntry{h.reduction->make_slot()};
    std::lock_guard<SpinLock> lock(h.lock);
    Group* last = h.last;
    Group* g;
    // A reduction that completed has folded and published its sequence number: a later
    // reduce access starts a new one, so waiting for the handle waits for it too.
    const bool joins =
        last && shareable && last->kind == r.mode && !(r.mode == AccessMode::reduce && h.idle());
    if (joins) {
      g = last;
      ++g->unfinished;
    } else {
      const std::uint64_t seq = ++h.next_seq;
      if (is_exclusive(r.mode) || r.mode == AccessMode::reduce) h.last_writer_seq = seq;
      if (h.idle()) {
        g = restart_idle_chain(h, seq, r.mode);
      } else {
        g = new_group(seq, r.mode);
        last->next = g;
        h.last = g;
      }
    }
    r.group = g;
    if (r.mode == AccessMode::reduce) {
      if (g->reducers_tail) {
        g->reducers_tail->next = r.reducer;
      } else {
        g->reducers_head = r.reducer;
      }
      g->reducers_tail = r.reducer;
    }
    if (!g->ready) {
      // Count the wait before the lock drops: the group may complete right after.
      task->pending.fetch_add(1, std::memory_order_relaxed);
      waited = true;
      r.next_waiter = g->waiters;
      g->waiters = &r;
    }
  }
  return waited;
}

void Scheduler::release_access(AccessRecord& r, Task*& ready_list) {
  HandleState& h = *r.handle;
  std::lock_guard<SpinLock> lock(h.lock);
  Group* g = r.group;
  if (--g->unfinished == 0 && g->ready) complete_group(h, g, ready_list);
}

void Scheduler::complete_group(HandleState& h, Group* g, Task*& ready_list) {
  if (g->kind == AccessMode::reduce) {
    for (ReducerEntry* r = g->reducers_head; r;) {
      ReducerEntry* next = r->next;
      h.reduction->fold(r->slot);
      h.reduction->drop_slot(r->slot);
      delete r;
      r = next;
    }
    g->reducers_head = g->reducers_tail = nullptr;
  }
  h.completed_seq.store(g->seq, std::memory_order_release);
  Group* next = g->next;
  if (!next) return;  // stays as h.first == h.last until superseded
  h.first = next;
  if (on_main_thread()) {
    group_pool_.give_local(g);
  } else {
    group_pool_.give(g);
  }
  next->ready = true;
  for (AccessRecord* w = next->waiters; w;) {
    AccessRecord* after = w->next_waiter;
    w->next_waiter = nullptr;
    if (decrement(w->task->pending) == 1) {
      w->task->next_free = ready_list;
      ready_list = w->task;
    }
    w = after;
  }
  next->waiters = nullptr;
}

std::string tags_text(const TaskTags& tags) {
  std::string text;
  for (int i = 0; i < tags.count; ++i) text += fmt::format("{}{}", i ? "," : "", tags.values[i]);
  return text;
}

void Scheduler::describe_waiting(std::ostream& out) const {
  out << fmt::format("runtime: {} tasks submitted, {} bodies run, {} completed\n", submitted_,
                     bodies_run(), tasks_completed());
  describe_replay(out);
  for (const HandleState& h : handles_) {
    auto& lock = const_cast<SpinLock&>(h.lock);
    std::lock_guard<SpinLock> guard(lock);
    for (const Group* g = h.first; g; g = g->next) {
      if (g->ready) {
        if (g->unfinished > 0) {
          out << fmt::format("  handle '{}': {} {} access(es) not finished\n", h.name,
                             g->unfinished, to_string(g->kind));
        }
        continue;
      }
      for (const AccessRecord* w = g->waiters; w; w = w->next_waiter) {
        out << fmt::format("  task '{}' #{} tags[{}] waits to {} handle '{}'\n", w->task->name,
                           w->task->id, tags_text(w->task->tags), to_string(w->mode), h.name);
      }
    }
  }
}

void* Scheduler::reduction_slot(Task* task, HandleState* handle) {
  AccessRecord* recs = task->records();
  for (std::uint32_t i = 0; i < task->access_count; ++i) {
    if (recs[i].handle == handle && recs[i].mode == AccessMode::reduce) {
      return recs[i].reducer->slot;
    }
  }
  throw std::logic_error(
      fmt::format("task '{}' has no reduce access on handle '{}'", task->name, handle->name));
}

void Scheduler::report_on_submit(Task* task, const Task& accessor) {
  // Observers (the trace checker) recompute dependencies from the full access list, so
  // a task with many accesses gets a heap list rather than a truncated one.
  AccessInfo inline_infos[kMaxDescribedAccesses];
  std::vector<AccessInfo> heap_infos;
  const std::size_t n = accessor.access_count;
  AccessInfo* infos = inline_infos;
  if (n > kMaxDescribedAccesses) {
    heap_infos.resize(n);
    infos = heap_infos.data();
  }
  const AccessRecord* recs = accessor.records();
  for (std::size_t i = 0; i < n; ++i) infos[i] = AccessInfo{recs[i].handle->id, recs[i].mode};
  observer_->on_submit(info_of(task, {infos, n}));
}

}  // namespace tessera::detail
