#include "runtime/scheduler.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "runtime/wait_until.hpp"
#include "tessera/base/tick_clock.hpp"

namespace tessera::detail {

namespace {
thread_local Worker* tls_worker = nullptr;
thread_local const Scheduler* tls_owner = nullptr;
}  // namespace

std::uint64_t Scheduler::tasks_completed() const {
  std::uint64_t sum = 0;
  for (const auto& w : workers_) sum += w->completed.load();
  return sum;
}

std::uint64_t Scheduler::bodies_run() const {
  std::uint64_t sum = 0;
  for (const auto& w : workers_) sum += w->bodies_run.load();
  return sum;
}

bool Scheduler::on_main_thread() const {
  // The thread-local pair is set by the newest runtime's main thread and its workers; an
  // older runtime still alive on the same thread falls back to comparing thread ids.
  if (tls_owner == this) return tls_worker->index == 0;
  return std::this_thread::get_id() == main_thread_;
}

Worker* Scheduler::current_worker() const {
  if (tls_owner == this) return tls_worker;
  return on_main_thread() ? main_ : nullptr;
}

Scheduler::Scheduler(const RuntimeOptions& options) : options_(options) {
  if (options_.threads < 1) {
    throw std::invalid_argument(fmt::format("threads must be >= 1 (got {})", options_.threads));
  }
  if (options_.sequential) options_.threads = 1;
  if (options_.idle_spin_rounds < 1) options_.idle_spin_rounds = 1;
  if (options_.wait_policy == WaitPolicy::environment) {
    options_.wait_policy = wait_policy_from_environment();
  }
  if (options_.compute_hook) compute_model_ = options_.compute_hook();
  // More threads than cores: a spinning thread would keep the one with work off its core
  // (OpenMPI likewise yields when oversubscribed). The process's own threads count against
  // the cores its affinity mask allows (mpirun binds ranks to one core by default).
  const unsigned cores = std::thread::hardware_concurrency();
  const int busy = std::max(options_.threads, options_.threads_on_machine);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool bound =
      sched_getaffinity(0, sizeof allowed, &allowed) == 0 && options_.threads > CPU_COUNT(&allowed);
  if (bound || (cores > 0 && static_cast<unsigned>(busy) > cores) ||
      options_.wait_policy == WaitPolicy::passive) {
    options_.idle_spin_rounds = std::min(options_.idle_spin_rounds, kOversubscribedSpinRounds);
  }
  for (int i = 0; i < options_.threads; ++i) {
    workers_.push_back(std::make_unique<Worker>(i, options_.steal_seed));
  }
  main_ = workers_[0].get();
  inline_threshold_ = kInlineThreshold * options_.threads;
  single_thread_ = options_.threads == 1;
  main_queue_lock_.set_uncontended(single_thread_);
  ordered_lock_.set_uncontended(single_thread_);
  main_thread_ = std::this_thread::get_id();
  tls_worker = main_;
  tls_owner = this;
  for (int i = 1; i < options_.threads; ++i) {
    threads_.emplace_back([this, i] { worker_loop(i); });
  }
  // A new thread may take milliseconds to first run (on this project's VMs up to 4 ms,
  // while an idle virtual CPU is brought back): waiting here keeps the first tasks from
  // all running on the main thread while the workers are not there yet.
  while (started_.load(std::memory_order_acquire) < options_.threads - 1) {
    std::this_thread::yield();
  }
}

Scheduler::~Scheduler() {
  // A later runtime may reuse this address: its main thread must not match stale state.
  if (tls_owner == this) tls_owner = nullptr;
  stop_.store(true, std::memory_order_seq_cst);
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  epoch_.notify_all();
  for (auto& t : threads_) t.join();
  for (auto& h : handles_) {
    for (Group* g = h.first; g;) {
      Group* next = g->next;
      group_pool_.give(g);
      g = next;
    }
  }
}

Handle Scheduler::create_handle(std::string name, std::shared_ptr<Runtime::ReductionOps> ops) {
  HandleState& h = handles_.emplace_back();
  h.lock.set_uncontended(single_thread_);
  h.id = handles_.size();
  h.name = std::move(name);
  h.reduction = std::move(ops);
  return Handle(&h);
}

Task* Scheduler::new_task(const char* name, const TaskAttributes& attributes) {
  Task* t = task_pool_.take();
  t->name = name;
  t->tags = attributes.tags;
  t->priority = attributes.priority;
  t->main_only = attributes.main_thread_only;
  t->ordered = attributes.order != TaskAttributes::kUnordered;
  t->order_key = attributes.order;
  t->work = attributes.work;
  t->work_variant = attributes.work_variant;
  t->cost_slot = cost_slot_of(attributes);
  t->id = ++submitted_;
  return t;
}

void Scheduler::end_batch() {
  batching_ = false;
  Task* list = batch_ready_;
  batch_ready_ = nullptr;
  Worker& self = *main_;
  bool any = false;
  while (list) {
    Task* t = list;
    list = t->next_free;
    t->next_free = nullptr;
    if (observe_ & kObserveReady) {
      AccessInfo scratch[1];
      observer_->on_ready(info_of(t, {scratch, 0}), 0);
    }
    if (t->main_only) {
      push_main_queue(t);
    } else {
      push_local(t, self);
    }
    any = true;
  }
  if (any) wake_workers();
}

void Scheduler::make_ready(Task* task, Worker& self) {
  if (observe_ & kObserveReady) {
    AccessInfo scratch[1];
    observer_->on_ready(info_of(task, {scratch, 0}), self.index);
  }
  queue_ready(task, self);
}

void Scheduler::queue_ready(Task* task, Worker& self) {
  if (task->main_only) {
    push_main_queue(task);
    if (self.index != 0) notify_main();
    return;
  }
  // With one thread there is nobody to hand the task to (and wake_workers returns at once).
  // An ordered task waits in the shared order: handing it over would jump that queue.
  if (!single_thread_ && !task->ordered && hand_to_idle(task, self)) {
    // Wake the receiver if it went to sleep since it looked (it checks its mailbox after
    // announcing that it sleeps).
    wake_workers();
    return;
  }
  push_local(task, self);
  wake_workers();
}

void Scheduler::push_local(Task* task, Worker& self) {
  if (task->ordered) {
    push_ordered(task);
  } else if (task->priority == Priority::high) {
    self.high.push(task);
    add_shared(high_queued_, 1);
  } else {
    self.normal.push(task);
  }
}

bool Scheduler::hand_to_idle(Task* task, const Worker& self) {
  const int n = static_cast<int>(workers_.size());
  for (int k = 1; k < n; ++k) {
    Worker& other = *workers_[(self.index + k) % n];
    if (!other.looking.load(std::memory_order_relaxed) ||
        other.mailbox.load(std::memory_order_relaxed)) {
      continue;
    }
    Task* empty = nullptr;
    if (other.mailbox.compare_exchange_strong(empty, task, std::memory_order_release,
                                              std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

void Scheduler::wake_workers() {
  if (workers_.size() == 1) return;  // only the caller itself could run the task
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_relaxed) > 0) {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    epoch_.notify_all();
  }
  if (!on_main_thread()) wake_main_after_fence();
}

void Scheduler::notify_main() {
  if (on_main_thread()) return;  // main is the caller
  std::atomic_thread_fence(std::memory_order_seq_cst);
  wake_main_after_fence();
}

void Scheduler::wake_main_after_fence() {
  if (main_sleeping_.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lock(main_sleep_mutex_);
    main_sleep_cv_.notify_one();
  }
}

Task* Scheduler::steal_from_others(Worker& self, bool high) {
  const int n = static_cast<int>(workers_.size());
  if (n == 1) return nullptr;
  int start = options_.steal_seed ? static_cast<int>(self.rng() % n) : self.index + 1;
  for (int k = 0; k < n; ++k) {
    Worker& victim = *workers_[(start + k) % n];
    if (&victim == &self) continue;
    Task* t = high ? victim.high.steal() : victim.normal.steal();
    if (t) return t;
    // A task handed to a thread that found other work meanwhile would wait for it.
    if (!high && victim.mailbox.load(std::memory_order_relaxed) &&
        !victim.looking.load(std::memory_order_relaxed)) {
      if ((t = victim.mailbox.exchange(nullptr, std::memory_order_acquire))) return t;
    }
  }
  return nullptr;
}

Task* Scheduler::find_task(Worker& self) {
  if (self.index == 0 && main_queue_size_.load(std::memory_order_acquire) > 0) {
    std::lock_guard<SpinLock> lock(main_queue_lock_);
    if (!main_queue_.empty()) {
      Task* t = main_queue_.front();
      main_queue_.pop_front();
      add_shared(main_queue_size_, -1);
      return t;
    }
  }
  if (self.mailbox.load(std::memory_order_relaxed)) {
    return self.mailbox.exchange(nullptr, std::memory_order_acquire);
  }
  // High-priority tasks oldest first (the owner takes from the thieves' end): they are
  // the skeleton, whose results other ranks wait for. Newest first let skeleton work
  // released for the next iteration overtake the packs and sends of this one, and the
  // neighbours waited (docs/scaling-sim.md, "Dataflow's schedule").
  // A steal also fails when another thread takes the same task at that moment (its
  // compare-exchange wins), so one failed round does not mean the high tasks are gone:
  // while they are counted, try again, or a normal task overtakes them (about 1 run in 50
  // of Priorities.HighTasksStartBeforeNormalOnesWithTwoThreads). The count drops right
  // after a winner's take; the bound covers a winner preempted in between.
  for (int round = 0; round < kHighStealRounds && high_queued_.load(std::memory_order_acquire) > 0;
       ++round) {
    Task* t = self.high.steal();
    if (!t) t = steal_from_others(self, true);
    if (t) {
      add_shared(high_queued_, -1);
      return t;
    }
    cpu_relax();
  }
  // With one thread nobody steals: no fence is needed to pop.
  Task* t = single_thread_ ? self.normal.pop_unshared() : self.normal.pop();
  if (!t && ordered_queued_.load(std::memory_order_acquire) > 0) t = pop_ordered();
  if (!t && !single_thread_) t = steal_from_others(self, false);
  return t;
}

void Scheduler::push_ordered(Task* task) {
  std::lock_guard<SpinLock> lock(ordered_lock_);
  ordered_.push_back(task);
  std::push_heap(ordered_.begin(), ordered_.end(), comes_after);
  add_shared(ordered_queued_, 1);
}

Task* Scheduler::pop_ordered() {
  std::lock_guard<SpinLock> lock(ordered_lock_);
  if (ordered_.empty()) return nullptr;
  std::pop_heap(ordered_.begin(), ordered_.end(), comes_after);
  Task* t = ordered_.back();
  ordered_.pop_back();
  add_shared(ordered_queued_, -1);
  return t;
}

void Scheduler::execute_body(Task* task, Worker& self, bool straight_after) {
  if (observe_ & kObserveBegin) {
    AccessInfo scratch[1];
    observer_->on_begin(info_of(task, {scratch, 0}), self.index);
  }
  Task& source = task->replay ? *task->replay->graph.nodes[task->node].task : *task;
  // A body naming a cost slot is timed for the cost table: with the observer's stamps when
  // it takes them, else with a read of its own at each end.
  const bool costed = costs_ && source.cost_slot >= 0;
  // A clock read costs ~35 cycles (rdtsc); between back-to-back tasks the thread only
  // schedules, so the end of the one before serves as this one's begin.
  std::int64_t begin_ticks = 0;
  if (observe_ & kObserveExecuted) {
    begin_ticks = straight_after && self.stamp_ticks != 0 ? self.stamp_ticks : base::fast_ticks();
  } else if (costed) {
    begin_ticks = base::fast_ticks();
  }
  TaskContext ctx(task, self.index, (observe_ & kObserveExecuted) ? begin_ticks : 0);
  // After a failure, bodies are skipped so the error surfaces quickly, except those of
  // communication tasks: peers wait for their messages and would otherwise hang.
  if (task->main_only || !failed_.load(std::memory_order_relaxed)) {
    try {
      if (compute_model_ && source.work > 0) {
        auto call = [&] { source.body(ctx); };
        compute_model_->run(
            task->name, source.work, source.work_variant,
            [](void* f) { (*static_cast<decltype(call)*>(f))(); }, &call);
      } else {
        source.body(ctx);
      }
    } catch (...) {
      record_error(task->name, std::current_exception());
    }
  }
  if (!task->replay) task->body.reset();
  if (observe_ & kObserveExecuted) {
    self.stamp_ticks = base::fast_ticks();
    observer_->on_executed(task->name, self.index, begin_ticks, self.stamp_ticks);
    if (costed)
      charge_cost(source.cost_slot, self.index, self.stamp_ticks - begin_ticks, source.work);
  } else {
    if (costed) {
      charge_cost(source.cost_slot, self.index, base::fast_ticks() - begin_ticks, source.work);
    }
    if (observe_ & kObserveCounted) observer_->on_counted(task->name, self.index);
  }
  if (observe_ & kObserveEnd) {
    AccessInfo scratch[1];
    observer_->on_end(info_of(task, {scratch, 0}), self.index);
  }
  self.bodies_run.increment();
}

Task* Scheduler::run(Task* task, Worker& self, bool straight_after) {
  execute_body(task, self, straight_after);
  // Without a hold nobody else can complete the task: finish without a locked RMW.
  if (!task->held.load(std::memory_order_relaxed) || decrement(task->holds) == 1) {
    return finish(task, self, true);
  }
  return nullptr;
}

void Scheduler::complete(Task* task) {
  if (decrement(task->holds) == 1) {
    Worker* self = current_worker();
    if (!self) throw std::logic_error("Runtime::complete called from a foreign thread");
    finish(task, *self, false);
  }
}

Task* Scheduler::finish(Task* task, Worker& self, bool want_immediate) {
  const OverheadScope overhead("runtime.finish");
  if (task->replay) {
    if (!task->replay->fixed) return finish_replayed(task, self, want_immediate);
    finish_fixed(task, self);
    return nullptr;
  }
  Task* ready_list = nullptr;
  AccessRecord* recs = task->records();
  for (std::uint32_t i = 0; i < task->access_count; ++i) release_access(recs[i], ready_list);
  task->extra_records.reset();
  task->access_count = 0;
  if (self.index == 0) {
    task_pool_.give_local(task);
  } else {
    task_pool_.give(task);
  }
  self.completed.increment();
  Task* immediate = nullptr;
  const bool woke = dispatch_ready(ready_list, &self, want_immediate ? &immediate : nullptr);
  // The main thread may sleep in a wait for this task (queuing a task woke it already).
  if (self.index != 0 && !woke) notify_main();
  return immediate;
}

bool Scheduler::dispatch_ready(Task* list, Worker* self, Task** immediate) {
  // Prefer a high-priority task as the immediate successor; never run a normal one
  // next while high-priority work is queued elsewhere.
  Task* pick = nullptr;
  if (immediate && self) {
    for (Task* t = list; t; t = t->next_free) {
      if (t->main_only && self->index != 0) continue;
      if (t->ordered) continue;  // it runs in its key's turn, from the shared order
      if (!pick || (t->priority == Priority::high && pick->priority != Priority::high)) pick = t;
    }
    if (pick && pick->priority != Priority::high &&
        high_queued_.load(std::memory_order_acquire) > 0) {
      pick = nullptr;
    }
  }
  bool queued = false;
  while (list) {
    Task* t = list;
    list = t->next_free;
    t->next_free = nullptr;
    if (t == pick) continue;
    make_ready(t, *self);
    queued = true;
  }
  if (pick) {
    if (observe_ & kObserveReady) {
      AccessInfo scratch[1];
      observer_->on_ready(info_of(pick, {scratch, 0}), self->index);
    }
    *immediate = pick;
  }
  return queued;
}

void Scheduler::worker_loop(int index) {
  Worker& self = *workers_[index];
  tls_worker = &self;
  tls_owner = this;
  started_.fetch_add(1, std::memory_order_release);
  Task* next = nullptr;
  int idle_rounds = 0;
  const int spin = options_.idle_spin_rounds;
  while (true) {
    const bool straight_after = next != nullptr;
    Task* t = next ? next : find_task_or_claimed(self);
    next = nullptr;
    if (t) {
      set_looking(self, false);
      idle_rounds = 0;
      next = run(t, self, straight_after);
      continue;
    }
    set_looking(self, true);
    if (stop_.load(std::memory_order_acquire)) break;
    if (join_fixed_replay(self)) {
      idle_rounds = 0;
      continue;
    }
    if (++idle_rounds < spin) {
      cpu_relax();
      continue;
    }
    if (idle_rounds < spin + kYieldRounds) {
      std::this_thread::yield();
      continue;
    }
    set_looking(self, false);  // asleep, it takes no hand-offs and waits for no claim
    give_up_claim(self);
    const std::uint32_t seen = epoch_.load(std::memory_order_seq_cst);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    t = find_task(self);
    if (!t && !stop_.load(std::memory_order_seq_cst) &&
        fixed_generation_.load(std::memory_order_seq_cst) == self.fixed_replays_joined) {
      epoch_.wait(seen, std::memory_order_seq_cst);
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    idle_rounds = 0;
    if (t) next = run(t, self);
  }
}

void Scheduler::check_hang(std::uint64_t& last_progress,
                           std::chrono::steady_clock::time_point& since) {
  if (options_.hang_timeout_s <= 0) return;
  const std::uint64_t progress =
      tasks_completed() + bodies_run() + (engine_ ? engine_->completions() : 0);
  const auto now = std::chrono::steady_clock::now();
  if (progress != last_progress) {
    last_progress = progress;
    since = now;
    return;
  }
  if (std::chrono::duration<double>(now - since).count() < options_.hang_timeout_s) return;
  std::ostringstream out;
  out << fmt::format("no task or request completed for {} s (hang timeout)\n",
                     options_.hang_timeout_s);
  describe_waiting(out);
  if (engine_) engine_->describe(out);
  if (options_.on_hang) {
    options_.on_hang(out.str());
    since = now;
    return;
  }
  std::fputs(out.str().c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

void Scheduler::wait_for_bodies(std::uint64_t target) {
  wait_until([&] { return bodies_run() >= target; });
}

void Scheduler::wait_all() {
  wait_until([&] { return tasks_completed() == submitted_; });
  rethrow_error();
}

void Scheduler::wait_for(HandleState* h) {
  const std::uint64_t target = h->last_writer_seq;
  wait_until([&] { return h->completed_seq.load(std::memory_order_acquire) >= target; });
  rethrow_error();
}

void Scheduler::record_error(const char* task_name, std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(error_mutex_);
  if (!error_) {
    error_ = error;
    error_task_ = task_name;
  }
  failed_.store(true, std::memory_order_release);
}

void Scheduler::rethrow_error() {
  if (!failed_.load(std::memory_order_acquire)) return;
  // Drain what is still running so nothing outlives the wait that reports the error.
  wait_until([&] { return tasks_completed() == submitted_; });
  std::exception_ptr error;
  std::string name;
  {
    std::lock_guard<std::mutex> lock(error_mutex_);
    error = std::exchange(error_, nullptr);
    name = error_task_;
    failed_.store(false, std::memory_order_release);
  }
  if (!error) return;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    throw TaskError(name, e.what());
  } catch (...) {
    throw TaskError(name, "unknown exception");
  }
}

TaskInfo Scheduler::info_of(Task* task, std::span<AccessInfo> scratch) const {
  TaskInfo info{task->id, task->name, &task->tags, task->priority, task->main_only, scratch};
  if (task->replay) {
    info.replayed = true;
    info.iteration = task->iteration;
  }
  return info;
}

}  // namespace tessera::detail
