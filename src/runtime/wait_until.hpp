#pragma once
// The main thread's wait loop, shared by the waits in scheduler.cpp and the replay loop.

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "runtime/scheduler.hpp"
#include "tessera/base/tick_clock.hpp"
#include "tessera/runtime/compute_hook.hpp"

namespace tessera::detail {

/// One round of an idle spin: tells the core this is a busy-wait (x86 `pause`, Arm `yield`;
/// other targets spin without a hint).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

/// Asks the kernel, once per thread, for a short time slice: 100 us (Linux >= 6.12's custom
/// slice, `sched_attr::sched_runtime` of a SCHED_OTHER thread) instead of EEVDF's base slice
/// (0.7 ms times 1 + log2 of the CPUs: 1.4 ms on 2), keeping the thread's nice value. A
/// passive waiter whose core another busy process shares wakes from its poll's sleep into
/// the run queue, and EEVDF lets the running process finish its slice first (RUN_TO_PARITY),
/// so each handover of the core waits up to a slice; a woken thread with a shorter slice
/// preempts at once, and two such waiters on one core take turns every 100 us. EEVDF keeps
/// shares of a core by virtual time whatever the slice (docs/balance.md, "Ranks that share a
/// core", has what was measured), and nothing a task computes changes. Older kernels ignore
/// the field; a refusal (a seccomp filter) or a policy other than SCHED_OTHER keeps the
/// default. Callable from any thread, for itself.
inline void request_short_slice() {
#if defined(__linux__) && defined(SYS_sched_setattr)
  thread_local bool requested = false;
  if (requested) return;
  requested = true;
  struct SchedAttr {  // the kernel's struct sched_attr (linux/sched/types.h), version 1
    std::uint32_t size, policy;
    std::uint64_t flags;
    std::int32_t nice;
    std::uint32_t priority;
    std::uint64_t runtime, deadline, period;
  } attr{};
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
  if (nice == -1 && errno != 0) return;
  if (sched_getscheduler(0) != SCHED_OTHER) return;  // a real-time or batch policy stays
  attr.size = sizeof attr;
  attr.policy = SCHED_OTHER;
  attr.nice = nice;
  attr.runtime = 100'000;  // ns
  syscall(SYS_sched_setattr, 0, &attr, 0u);
#endif
}

template <class Pred>
void Scheduler::wait_until(Pred done) {
  // The caller may make MPI calls of its own next (a clock read, a blocking collective):
  // they happen once the work charged during the wait is done (modelled compute).
  struct FlushCharges {
    ~FlushCharges() { flush_compute_charges(); }
  } flush_charges;
  Worker& self = *main_;
  std::uint64_t last_progress = ~std::uint64_t{0};
  std::chrono::steady_clock::time_point since{};  // set by the first check_hang
  int idle_rounds = 0;
  const int spin = options_.idle_spin_rounds;
  // Start of the current stretch of polling with requests in flight and nothing to run;
  // cycle-counter ticks, since a fine-grained run has such a stretch every step.
  std::int64_t idle_since = 0;
  bool idle = false;
  // The round's lane call found what the wait was for: the wait ended when it began.
  std::int64_t handled_from = 0;
  auto end_idle = [&] {
    if (idle) {
      engine_->idle_wait((handled_from != 0 ? handled_from : base::fast_ticks()) - idle_since);
      idle = false;
    }
  };
  // However the wait ends (the lane may throw), a task handed over meanwhile goes where
  // the other threads find it: the main thread leaves to submit. A claim stays: only a
  // replay's loop leaves a wait with one, and it waits again until the task has run.
  struct StopLooking {
    Scheduler& scheduler;
    Worker& self;
    ~StopLooking() {
      set_looking(self, false);
      if (Task* handed = self.mailbox.exchange(nullptr, std::memory_order_acquire)) {
        scheduler.queue_ready(handed, self);
      }
    }
  } stop_looking{*this, self};
  // Simulated runs only (see below): the next lane call waits for a completion.
  bool block = false;
  while (!done()) {
    const LaneProgress lane =
        engine_ ? progress_lane(self, std::exchange(block, false)) : LaneProgress{};
    handled_from = lane.handled_from;
    if (Task* t = find_task_or_claimed(self)) {
      set_looking(self, false);
      end_idle();
      idle_rounds = 0;
      // Run the task and its immediate successors, returning to the communication lane
      // between compute tasks so receives are posted and requests completed promptly
      // (a communication task next is lane work itself: it runs at once). A task begins
      // where the lane's handling, or the task before, ended.
      for (bool straight_after = lane.handled_to != 0; t;) {
        t = run(t, self, straight_after);
        straight_after = true;
        if (t && engine_ && !t->main_only) {
          try {
            straight_after = progress_lane(self).handled_to != 0;
          } catch (...) {
            queue_ready(t, self);  // released already: it must not be lost
            throw;
          }
          if (main_queue_size_.load(std::memory_order_acquire) > 0) {
            queue_ready(t, self);  // reported ready when it was released
            t = nullptr;
          }
        }
      }
      continue;
    }
    if (done()) break;
    set_looking(self, true);
    if (lane.in_flight && !idle) {
      idle = true;
      idle_since = base::fast_ticks();
    } else if (!lane.in_flight) {
      end_idle();
    }
    // The lane's stamps are from before this round's idling: what comes next reads the
    // clock.
    self.stamp_ticks = 0;
    handled_from = 0;
#ifdef TESSERA_SMPI
    // Under SimGrid SMPI every poll costs simulated time (smpi/test per request) and a
    // context switch of the simulator; one thread with nothing to run can only wait for a
    // completion, so it waits in MPI: the simulated rank notices it the moment it happens.
    if (lane.in_flight && workers_.size() == 1) {
      block = true;
      continue;
    }
#endif
    if (++idle_rounds < spin) {
      cpu_relax();
      continue;
    }
    check_hang(last_progress, since);
    // Workers finishing a fixed-schedule replay's tasks wake nobody: the main thread
    // waiting for them stays awake.
    if (lane.in_flight || workers_.size() == 1 || (replay_ && replay_->fixed)) {
      // Passive: only requests or other threads can end the wait, and they take at least
      // microseconds; a short sleep frees the core for them (or for another job) where a
      // yield would keep it whenever the scheduler has nothing else queued on it.
      if (options_.wait_policy == WaitPolicy::passive && idle_rounds > spin + kYieldRounds) {
        request_short_slice();
        std::this_thread::sleep_for(kPassivePoll);
      } else {
        std::this_thread::yield();
      }
      continue;
    }
    // Asleep, the main thread takes no hand-offs and waits for no claim: they stay with
    // threads that are awake.
    set_looking(self, false);
    give_up_claim(self);
    std::unique_lock<std::mutex> lock(main_sleep_mutex_);
    main_sleeping_.store(true, std::memory_order_seq_cst);
    if (!done() && main_queue_size_.load(std::memory_order_seq_cst) == 0 && self.normal.empty() &&
        self.high.empty() && !self.mailbox.load(std::memory_order_seq_cst)) {
      main_sleep_cv_.wait_for(lock, std::chrono::milliseconds(2));
    }
    main_sleeping_.store(false, std::memory_order_relaxed);
  }
  end_idle();
}

}  // namespace tessera::detail
