// Iteration graphs: recording submissions as nodes, deriving their edges once, and
// replaying iterations through counters instead of access groups.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <exception>
#include <functional>
#include <limits>
#include <ostream>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "runtime/scheduler.hpp"
#include "runtime/wait_until.hpp"

namespace tessera::detail {

namespace {

/// Accesses of one handle seen so far while deriving edges: the last exclusive access
/// and the reads after it, as (node, iteration 0 or 1) pairs.
struct HandleHistory {
  struct Use {
    std::uint32_t node;
    int pass;
  };
  bool written = false;
  Use writer{};
  std::vector<Use> readers;
};

/// Sorts and deduplicates the edges collected per node, then counts predecessors.
void finalize_edges(RecordedGraph& graph) {
  for (auto& n : graph.nodes) {
    for (auto* list : {&n.successors, &n.next_successors}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
  for (auto& n : graph.nodes) {
    for (std::uint32_t j : n.successors) ++graph.nodes[j].predecessors;
    for (std::uint32_t j : n.next_successors) ++graph.nodes[j].prior_predecessors;
  }
}

/// RecordedGraph::order: Kahn's algorithm over the edges within an iteration, with a
/// min-heap of node indices per class (communication, high priority, the rest).
std::vector<std::uint32_t> in_order_schedule(const RecordedGraph& graph) {
  using MinHeap = std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>>;
  std::array<MinHeap, 3> ready;
  const auto place = [&](std::uint32_t j) {
    const Task& t = *graph.nodes[j].task;
    ready[t.main_only ? 0 : t.priority == Priority::high ? 1 : 2].push(j);
  };
  const auto n = static_cast<std::uint32_t>(graph.nodes.size());
  std::vector<int> left(n);
  for (std::uint32_t j = 0; j < n; ++j) {
    left[j] = graph.nodes[j].predecessors;
    if (left[j] == 0) place(j);
  }
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (;;) {
    const auto q = std::find_if(ready.begin(), ready.end(), [](auto& h) { return !h.empty(); });
    if (q == ready.end()) break;
    const std::uint32_t j = q->top();
    q->pop();
    order.push_back(j);
    for (std::uint32_t s : graph.nodes[j].successors) {
      if (--left[s] == 0) place(s);
    }
  }
  return order;
}

}  // namespace

void Scheduler::begin_recording() {
  if (!on_main_thread()) throw std::logic_error("begin_recording called off the main thread");
  if (recording_) throw std::logic_error("begin_recording: already recording");
  recording_ = std::make_unique<RecordedGraph>();
  recording_->owner = this;
}

void Scheduler::record(Task* task) {
  // The node is no task of this run: it is neither counted nor completed.
  --submitted_;
  AccessRecord* recs = task->records();
  for (std::uint32_t i = 0; i < task->access_count; ++i) {
    if (recs[i].mode == AccessMode::reduce) {
      const std::string handle = recs[i].handle->name;
      task->body.reset();
      task->extra_records.reset();
      task_pool_.give(task);
      throw std::invalid_argument(fmt::format(
          "task '{}' reduces handle '{}': a recorded iteration graph cannot hold reduce accesses",
          task->name, handle));
    }
  }
  recording_->nodes.emplace_back().task.reset(task);
}

std::shared_ptr<const RecordedGraph> Scheduler::end_recording() {
  if (!on_main_thread()) throw std::logic_error("end_recording called off the main thread");
  if (!recording_) throw std::logic_error("end_recording without begin_recording");
  std::unique_ptr<RecordedGraph> graph = std::move(recording_);
  // Submitting the nodes twice, as iterations 0 and 1, shows every kind of edge: one
  // iteration's nodes depend only on earlier nodes of it and on the previous iteration.
  std::unordered_map<const HandleState*, HandleHistory> history;
  const auto n = static_cast<std::uint32_t>(graph->nodes.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint32_t j = 0; j < n; ++j) {
      Task& task = *graph->nodes[j].task;
      const auto add_edge = [&](HandleHistory::Use from) {
        if (from.pass == pass) {
          if (pass == 0) graph->nodes[from.node].successors.push_back(j);
        } else {
          graph->nodes[from.node].next_successors.push_back(j);
        }
      };
      AccessRecord* recs = task.records();
      for (std::uint32_t i = 0; i < task.access_count; ++i) {
        HandleHistory& h = history[recs[i].handle];
        if (recs[i].mode == AccessMode::read) {
          if (h.written) add_edge(h.writer);
          h.readers.push_back({j, pass});
          continue;
        }
        // Exclusive: after the reads since the last write, which follow that write.
        if (!h.readers.empty()) {
          for (HandleHistory::Use r : h.readers) add_edge(r);
        } else if (h.written) {
          add_edge(h.writer);
        }
        h.written = true;
        h.writer = {j, pass};
        h.readers.clear();
      }
    }
  }
  finalize_edges(*graph);
  graph->order = in_order_schedule(*graph);
  return graph;
}

void Scheduler::arm(Replay& replay, std::int64_t m) {
  Replay::Slot& slot = replay.slots[replay.slot_of(m)];
  // The slot's previous iteration has completed: no count in it can change now.
  slot.done_before = replay.completed_in(replay.slot_of(m));
  slot.armed = true;
  slot.iteration = m;
  Task* instances = replay.instances_of(m);
  for (std::uint32_t j = 0; j < replay.width; ++j) {
    const RecordedGraph::Node& node = replay.graph.nodes[j];
    Task& t = instances[j];
    t.iteration = m;
    t.id = ++submitted_;
    t.holds.store(1, std::memory_order_relaxed);
    t.held.store(false, std::memory_order_relaxed);
    t.next_free = nullptr;
    const int prior = m > replay.first ? node.prior_predecessors : 0;
    // Run in order, nothing runs before the loop reaches it: no hold for the release.
    const int held_for_release = !replay.in_order && node.released_by_loop() ? 1 : 0;
    t.pending.store(node.predecessors + prior + held_for_release, std::memory_order_relaxed);
    if (observe_ & kObserveSubmit) report_on_submit(&t, *node.task);
  }
}

void Scheduler::release(Replay& replay, std::int64_t m) {
  Task* instances = replay.instances_of(m);
  Task* ready = nullptr;
  for (std::uint32_t j = 0; j < replay.width; ++j) {
    if (!replay.graph.nodes[j].released_by_loop()) continue;
    Task& t = instances[j];
    if (decrement(t.pending) == 1) {
      t.next_free = ready;
      ready = &t;
    }
  }
  replay.released_end = m + 1;
  dispatch_ready(ready, main_, nullptr);
}

Task* Scheduler::finish_replayed(Task* task, Worker& self, bool want_immediate) {
  Replay& replay = *task->replay;
  Task* ready = nullptr;
  Task* last_one_left = nullptr;  // a successor now waiting for one more predecessor
  const auto count_down = [this, &self, &ready, &last_one_left](Task& successor) {
    const int before = decrement(successor.pending);
    if (before == 1) {
      successor.next_free = ready;
      ready = &successor;
    } else if (before == 2 && (!successor.main_only || self.index == 0)) {
      last_one_left = &successor;
    }
  };
  replay.for_each_successor(*task, count_down);
  // A thread left without work waits for the successor another thread is about to
  // release: that thread then leaves it where this one looks, saving the hand-off (at
  // sub-microsecond steps, each cache line passed between cores is a large share). This
  // comes before the completion is counted: until then no slot can be re-armed.
  if (!ready && last_one_left && want_immediate && !single_thread_ && !self.claim &&
      !describes_tasks() && self.high.empty() && self.normal.empty()) {
    claim(last_one_left, self);
  }
  // The last touch of the task's slot: once all of it is done the main thread re-arms it.
  replay.count_completion(task->slot, self.index);
  self.completed.increment();
  Task* immediate = nullptr;
  const bool woke = dispatch_ready(ready, &self, want_immediate ? &immediate : nullptr);
  if (self.index != 0 && !woke) notify_main();
  return immediate;
}

void Scheduler::finish_in_order(Task* task, Worker& self) {
  Replay& replay = *task->replay;
  replay.for_each_successor(*task, [this](Task& successor) { decrement(successor.pending); });
  replay.count_completion(task->slot, self.index);
  self.completed.increment();
}

template <class Wait, class Poll>
void Scheduler::replay_in_order(Replay& replay, const Wait& wait, const Poll& poll) {
  const std::vector<std::uint32_t>& order = replay.graph.order;
  const std::size_t width = order.size();
  std::int64_t armed_end = replay.first;
  // Arms the iterations before `until` (at most the last) as long as their slots are
  // free; true once all of them are armed. Iteration m's tasks may start once m + 1 is:
  // finishing them counts down its tasks.
  const auto armed_before = [&](std::int64_t until) {
    until = std::min(until, replay.end);
    while (armed_end < until) {
      if (armed_end - Replay::kWindow >= replay.first &&
          !replay.slot_complete(replay.slot_of(armed_end))) {
        return false;
      }
      arm(replay, armed_end);
      replay.released_end = ++armed_end;
    }
    return true;
  };
  // Iterations before this one may start tasks.
  const auto startable_end = [&] { return armed_end == replay.end ? replay.end : armed_end - 1; };
  // The first ready task not started yet after position k of iteration m, in loop order.
  const auto ready_after = [&](std::int64_t m, std::size_t k) -> Task* {
    for (std::int64_t i = m; i < startable_end(); ++i) {
      Task* instances = replay.instances_of(i);
      for (std::size_t q = i == m ? k + 1 : 0; q < width; ++q) {
        Task& t = instances[order[q]];
        if (t.pending.load(std::memory_order_relaxed) == 0) return &t;
      }
    }
    return nullptr;
  };
  bool after_compute = false;
  const auto start = [&](Task& t) {
    t.pending.store(kStarted, std::memory_order_relaxed);
    // Between two compute tasks the thread returns to the lane, so requests finish (and
    // peers waiting for them go on) while a long stretch of compute runs.
    if (!t.main_only && after_compute && engine_) poll();
    after_compute = !t.main_only;
    run(&t, *main_);
  };
  for (std::int64_t m = replay.first; m < replay.end; ++m) {
    Task* instances = replay.instances_of(m);
    for (std::size_t k = 0; k < width; ++k) {
      Task& t = instances[order[k]];
      // The request a task waits for has usually finished: a poll or two (OpenMPI's
      // Testsome reports a request one call after the one that received its message)
      // is cheaper than entering the wait.
      int quick_polls = engine_ ? 2 : 0;
      for (;;) {
        if (armed_before(m + 2)) {
          const int pending = t.pending.load(std::memory_order_relaxed);
          if (pending == kStarted) break;  // it ran while an earlier one waited
          if (pending == 0) {
            start(t);
            break;
          }
        }
        if (quick_polls-- > 0) {
          poll();
          continue;
        }
        // Waiting, run any later ready task: the order must never hold back a send that
        // a peer needs before it can send what this task waits for.
        Task* ahead = nullptr;
        wait([&] {
          if (armed_before(m + 2) && t.pending.load(std::memory_order_relaxed) <= 0) return true;
          ahead = ready_after(m, k);
          return ahead != nullptr;
        });
        if (ahead) start(*ahead);
      }
    }
  }
}

void Scheduler::replay(const RecordedGraph& graph, std::int64_t first, std::int64_t count) {
  if (!on_main_thread()) throw std::logic_error("replay called off the main thread");
  if (recording_) throw std::logic_error("replay called while recording");
  if (graph.owner != this) {
    throw std::invalid_argument("replay: the graph was recorded on another runtime");
  }
  if (count < 0) throw std::invalid_argument(fmt::format("replay: count {} < 0", count));
  if (first > std::numeric_limits<std::int64_t>::max() - count) {
    throw std::invalid_argument(
        fmt::format("replay: iterations {} + {} overflow a 64-bit iteration number", first, count));
  }
  wait_all();
  if (count == 0 || graph.nodes.empty()) return;
  // One thread whose observer describes no task needs neither queues nor hand-offs.
  Replay run(graph, first, count, options_.threads, single_thread_ && !describes_tasks());
  run.released_end = first;
  replay_ = &run;
  struct Detach {
    Replay*& current;
    ~Detach() { current = nullptr; }
  } detach{replay_};
  const auto all_done = [&] { return tasks_completed() == submitted_; };
  // A wait may throw: the lane reports a failed request (once per failure), a hang
  // callback may throw. As when the tasks are submitted, that does not stop the others:
  // every iteration is still armed and released (communication tasks must post their
  // operations, peers wait for them), and nothing may outlive the instances anyway. The
  // first such exception is thrown once the replay completed.
  std::exception_ptr wait_error;
  const auto wait = [&](auto done) {
    for (;;) {
      try {
        wait_until(done);
        return;
      } catch (...) {
        if (!wait_error) wait_error = std::current_exception();
      }
    }
  };
  if (run.in_order) {
    const auto poll = [&] {
      try {
        engine_->progress();
      } catch (...) {
        if (!wait_error) wait_error = std::current_exception();
      }
    };
    replay_in_order(run, wait, poll);
  } else {
    arm(run, first);
    for (std::int64_t m = first; m < run.end; ++m) {
      const std::int64_t next = m + 1;
      if (next < run.end) {
        if (next - Replay::kWindow >= first) {
          const std::size_t reused = run.slot_of(next);
          wait([&] { return run.slot_complete(reused); });
        }
        arm(run, next);
      }
      release(run, m);
    }
  }
  wait(all_done);
  if (wait_error) std::rethrow_exception(wait_error);
  rethrow_error();
}

void Scheduler::claim(Task* task, Worker& self) {
  int v = task->pending.load(std::memory_order_relaxed);
  // Only while predecessors remain, and one claim at a time.
  while (v > 0 && (v & kClaimed) == 0) {
    if (task->pending.compare_exchange_weak(v, v | kClaimed, std::memory_order_acq_rel,
                                            std::memory_order_relaxed)) {
      self.claim = task;
      return;
    }
  }
}

void Scheduler::give_up_claim(Worker& self) {
  Task* task = std::exchange(self.claim, nullptr);
  if (!task) return;
  const int v = task->pending.fetch_and(~kClaimed, std::memory_order_acq_rel);
  // Its last predecessor finished meanwhile and left the task to this thread.
  if ((v & ~kClaimed) == 0) queue_ready(task, self);
}

void Scheduler::describe_replay(std::ostream& out) const {
  if (!replay_) return;
  const Replay& r = *replay_;
  for (std::int64_t s = 0; s < Replay::kWindow; ++s) {
    const Replay::Slot& slot = r.slots[s];
    if (!slot.armed || r.slot_complete(static_cast<std::size_t>(s))) continue;
    const Task* instances = &r.instances[static_cast<std::size_t>(s) * r.width];
    for (std::uint32_t j = 0; j < r.width; ++j) {
      const Task& t = instances[j];
      const std::string what = fmt::format("  task '{}' #{} tags[{}] of replayed iteration {}",
                                           t.name, t.id, tags_text(t.tags), slot.iteration);
      if (const int waiting = t.pending.load(std::memory_order_acquire) & ~kClaimed; waiting > 0) {
        const bool unreleased = slot.iteration >= r.released_end;
        out << fmt::format("{} waits for {} earlier task(s){}\n", what, waiting,
                           unreleased ? " (its iteration is not released yet)" : "");
      } else if (t.holds.load(std::memory_order_acquire) > 0 &&
                 t.held.load(std::memory_order_relaxed)) {
        out << fmt::format("{} ran and holds its completion\n", what);
      }
    }
  }
}

}  // namespace tessera::detail
