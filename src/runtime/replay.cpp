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

/// Sorts and deduplicates the edges collected per node, then lists each node's
/// predecessors.
void finalize_edges(RecordedGraph& graph) {
  for (auto& n : graph.nodes) {
    for (auto* list : {&n.successors, &n.next_successors}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
  for (std::uint32_t i = 0; i < graph.nodes.size(); ++i) {
    for (std::uint32_t j : graph.nodes[i].successors) graph.nodes[j].after.push_back(i);
    for (std::uint32_t j : graph.nodes[i].next_successors) {
      graph.nodes[j].after_previous.push_back(i);
    }
  }
}

/// RecordedGraph::order: Kahn's algorithm over the edges within an iteration, with a
/// min-heap of node indices per class (communication, compute that a communication node
/// waits for, high priority, the rest). Without `feeders_first` the second class merges
/// into the others (the order fixed_shares assigns threads by).
std::vector<std::uint32_t> in_order_schedule(const RecordedGraph& graph, bool feeders_first) {
  using MinHeap = std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>>;
  std::array<MinHeap, 4> ready;
  const auto feeds_communication = [&](std::uint32_t j) {
    const auto& successors = graph.nodes[j].successors;
    return std::any_of(successors.begin(), successors.end(),
                       [&](std::uint32_t s) { return graph.nodes[s].task->main_only; });
  };
  // A pack is placed right after the work whose result it packs, and its send right after
  // it: a thread walking the order sends each message as soon as its data exist, not after
  // the whole phase that writes them (radhydro's per-face sends of the second stage waited
  // for every block's first stage). So is an unpack that frees a buffer for a receive.
  const auto place = [&](std::uint32_t j) {
    const Task& t = *graph.nodes[j].task;
    ready[t.main_only                               ? 0
          : feeders_first && feeds_communication(j) ? 1
          : t.priority == Priority::high            ? 2
                                                    : 3]
        .push(j);
  };
  const auto n = static_cast<std::uint32_t>(graph.nodes.size());
  std::vector<int> left(n);
  for (std::uint32_t j = 0; j < n; ++j) {
    left[j] = static_cast<int>(graph.nodes[j].after.size());
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

/// Replay::shares for `threads` threads. Communication nodes go to the main thread (only
/// it may call MPI). The other nodes are split into equal counts: those without a
/// predecessor in the iteration in contiguous blocks of the order (neighbours in a
/// loop usually share data), then each on the thread that runs most of its
/// predecessors, else the least loaded one, so chains of tasks stay on one thread.
std::vector<std::vector<std::uint32_t>> fixed_shares(const RecordedGraph& graph, int threads) {
  const auto n = static_cast<std::uint32_t>(graph.nodes.size());
  // Threads are assigned along the order without the communication feeders first, so
  // where a node runs does not depend on them; each share is then walked in graph.order.
  const std::vector<std::uint32_t> assignment =
      threads > 1 ? in_order_schedule(graph, false) : std::vector<std::uint32_t>();
  const auto compute = [&](std::uint32_t j) { return !graph.nodes[j].task->main_only; };
  std::vector<int> thread_of(n, 0);
  std::vector<std::size_t> load(static_cast<std::size_t>(threads), 0);
  std::vector<std::uint32_t> sources;
  std::size_t compute_nodes = 0;
  for (std::uint32_t j : assignment) {
    if (!compute(j)) continue;
    ++compute_nodes;
    if (graph.nodes[j].after.empty()) sources.push_back(j);
  }
  const std::size_t cap =
      (compute_nodes + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto w = static_cast<int>(i * static_cast<std::size_t>(threads) / sources.size());
    thread_of[sources[i]] = w;
    ++load[static_cast<std::size_t>(w)];
  }
  std::vector<std::size_t> votes(static_cast<std::size_t>(threads));
  for (std::uint32_t j : assignment) {
    if (!compute(j) || graph.nodes[j].after.empty()) continue;
    std::fill(votes.begin(), votes.end(), 0);
    for (std::uint32_t p : graph.nodes[j].after) {
      if (compute(p)) ++votes[static_cast<std::size_t>(thread_of[p])];
    }
    std::size_t best = load.size();
    for (std::size_t w = 0; w < load.size(); ++w) {
      if (load[w] >= cap) continue;
      if (best == load.size() || votes[w] > votes[best] ||
          (votes[w] == votes[best] && load[w] < load[best])) {
        best = w;
      }
    }
    thread_of[j] = static_cast<int>(best);
    ++load[best];
  }
  std::vector<std::vector<std::uint32_t>> shares(static_cast<std::size_t>(threads));
  for (std::uint32_t j : graph.order) {
    shares[static_cast<std::size_t>(compute(j) ? thread_of[j] : 0)].push_back(j);
  }
  return shares;
}

}  // namespace

/// A thread's view of a fixed-schedule replay. Completion counts only grow, so a count
/// seen once is a lower bound for good: the thread loads a node's count again only when
/// the one it saw is not enough, and a predecessor's cache line moves once per step.
struct Scheduler::ShareView {
  explicit ShareView(const Replay& r) : replay(r), seen(r.width, 0), started(r.width, 0) {}
  /// Whether node p completed at least n instances.
  bool completed(std::uint32_t p, std::int64_t n) {
    if (seen[p] >= n) return true;
    seen[p] = replay.progress[p].value.load(std::memory_order_acquire);
    return seen[p] >= n;
  }
  /// Whether node j's instance c (of iteration first + c) may start: it is the node's
  /// next, its predecessors completed, and so did every instance kWindow - 1 iterations
  /// before it.
  bool ready(std::uint32_t j, std::int64_t c) {
    if (started[j] != c || !completed(j, c)) return false;
    const auto need = [this](std::uint32_t p, std::int64_t n) { return completed(p, n); };
    if (!replay.predecessors_satisfy(j, c, need)) return false;
    const std::int64_t needed = c - (Replay::kWindow - 2);
    if (needed <= floor) return true;
    std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
    for (std::uint32_t p = 0; p < replay.width; ++p) {
      if (!completed(p, needed)) return false;
      lowest = std::min(lowest, seen[p]);
    }
    floor = lowest;
    return true;
  }

  const Replay& replay;
  std::vector<std::int64_t> seen;     // [node]: completed instances last seen
  std::vector<std::int64_t> started;  // [node]: instances started (own nodes)
  std::int64_t floor = 0;             // every node completed at least this many
};

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
  graph->order = in_order_schedule(*graph, true);
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
    const std::size_t prior = m > replay.first ? node.after_previous.size() : 0;
    const std::size_t held_for_release = node.released_by_loop() ? 1 : 0;
    t.pending.store(static_cast<int>(node.after.size() + prior + held_for_release),
                    std::memory_order_relaxed);
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

void Scheduler::finish_fixed(Task* task, Worker& self) {
  Replay& replay = *task->replay;
  // The last touch of the instance: its node's next instance may start on another thread.
  replay.progress[task->node].value.store(task->iteration - replay.first + 1,
                                          std::memory_order_release);
  self.completed.increment();
}

template <class Wait, class Poll>
void Scheduler::run_share(Replay& replay, Worker& self, const Wait& wait, const Poll& poll) {
  const std::vector<std::uint32_t>& share = replay.shares[static_cast<std::size_t>(self.index)];
  if (share.empty()) return;
  ShareView view(replay);
  const bool lane = self.index == 0 && engine_;
  bool after_compute = false;   // a compute task ran since the lane's last call
  bool straight_after = false;  // nothing but scheduling since the last timed work ended
  const auto start = [&](std::uint32_t j, std::int64_t m) {
    Task& t = replay.instances_of(m)[j];
    view.started[j] = m - replay.first + 1;
    t.iteration = m;
    t.id = replay.id_of(j, m);
    t.holds.store(1, std::memory_order_relaxed);
    t.held.store(false, std::memory_order_relaxed);
    // Between two compute tasks the main thread returns to the lane, so requests finish
    // (and peers waiting for them go on) while a long stretch of compute runs.
    if (lane && !t.main_only && after_compute) straight_after = poll().handled_to != 0;
    after_compute = !t.main_only;
    run(&t, self, straight_after);
    straight_after = true;
  };
  // A ready instance of the share after position k of iteration m, within the iterations
  // that may run (ShareView::ready checks the window). The search resumes after the
  // instance it found last for the same waiting one and wraps round to just after the
  // waiting one, so it finds any ready instance, and the many that run behind one long
  // wait cost a step each: searching from the waiting one every time walked every
  // instance already started behind it again, quadratic in the instances behind a wait
  // (mg on 2 ranks of 512 small blocks: 65 % of the run).
  std::uint32_t ahead_node = 0;
  std::int64_t ahead_iteration = 0;
  std::int64_t cursor_iteration = -1;  // where the search resumes: iteration, position
  std::size_t cursor_position = 0;
  std::int64_t waiting_iteration = -1;  // the waiting instance the cursor belongs to
  std::size_t waiting_position = 0;
  const auto find_ahead = [&](std::int64_t m, std::size_t k) {
    const std::int64_t until = std::min(replay.end, m + Replay::kWindow - 1);
    if (waiting_iteration != m || waiting_position != k) {
      waiting_iteration = m;
      waiting_position = k;
      cursor_iteration = m;
      cursor_position = k + 1;
    }
    // Positions after (m, k) in order: (i, q) for m <= i < until, q > k where i == m.
    const auto search = [&](std::int64_t i, std::size_t q, std::int64_t end_i, std::size_t end_q) {
      for (; i < end_i || (i == end_i && q < end_q); ++q) {
        if (q >= share.size()) {
          q = 0;
          if (++i >= until || (i == end_i && q >= end_q)) break;
        }
        if (view.ready(share[q], i - replay.first)) {
          ahead_node = share[q];
          ahead_iteration = i;
          cursor_iteration = i;
          cursor_position = q + 1;
          return true;
        }
      }
      return false;
    };
    return search(cursor_iteration, cursor_position, until, 0) ||
           search(m, k + 1, cursor_iteration, cursor_position);
  };
  for (std::int64_t m = replay.first; m < replay.end; ++m) {
    const std::int64_t c = m - replay.first;
    for (std::size_t k = 0; k < share.size(); ++k) {
      const std::uint32_t j = share[k];
      // The request a task waits for has usually finished: a poll or two (OpenMPI's
      // Testsome reports a request one call after the one that received its message)
      // is cheaper than entering the wait.
      int quick_polls = lane ? 2 : 0;
      while (view.started[j] == c) {  // else it ran while an earlier one waited
        if (view.ready(j, c)) {
          start(j, m);
          break;
        }
        if (quick_polls-- > 0) {
          straight_after = poll().handled_to != 0;
          after_compute = false;
          continue;
        }
        // Waiting, run any later ready instance: the order must never hold back a task
        // (a send, say) that what this one waits for depends on. The main thread's wait
        // ends with a lane call or a task, whose stamp the next task begins at; a
        // worker's wait is a spin.
        bool found = false;
        wait([&] { return view.ready(j, c) || (found = find_ahead(m, k)); });
        straight_after = lane;
        if (lane) after_compute = false;
        if (found) start(ahead_node, ahead_iteration);
      }
    }
  }
}

bool Scheduler::join_fixed_replay(Worker& self) {
  const std::uint64_t generation = fixed_generation_.load(std::memory_order_acquire);
  if (generation == self.fixed_replays_joined) return false;
  self.fixed_replays_joined = generation;
  // The replay outlives this call: the main thread waits for workers_out.
  Replay& replay = *fixed_replay_.load(std::memory_order_relaxed);
  const int spin = options_.idle_spin_rounds;
  const auto spin_wait = [spin](auto done) {
    for (int rounds = 0; !done();) {
      if (++rounds < spin) {
        cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
  };
  run_share(replay, self, spin_wait, [] { return LaneProgress{}; });
  replay.workers_out.fetch_add(1, std::memory_order_release);
  return true;
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
  // An observer that describes tasks sees them become ready in the queues; one thread
  // needs neither queues nor hand-offs.
  const bool fixed =
      (single_thread_ || options_.replay_schedule == ReplaySchedule::fixed) && !describes_tasks();
  Replay run(graph, first, count, options_.threads, fixed, replay_storage_);
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
  if (run.fixed) {
    run.shares = fixed_shares(graph, options_.threads);
    run.first_id = submitted_;
    submitted_ += static_cast<std::uint64_t>(count) * run.width;
    if (!single_thread_) {
      fixed_replay_.store(&run, std::memory_order_relaxed);
      fixed_generation_.fetch_add(1, std::memory_order_release);
      wake_workers();
    }
    const auto poll = [&] {
      try {
        return progress_lane(*main_);
      } catch (...) {
        if (!wait_error) wait_error = std::current_exception();
        return LaneProgress{};
      }
    };
    run_share(run, *main_, wait, poll);
    const int workers = options_.threads - 1;
    wait([&] { return run.workers_out.load(std::memory_order_acquire) == workers; });
    fixed_replay_.store(nullptr, std::memory_order_relaxed);
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
  const auto describe = [&](const Task& t, std::uint64_t id, std::int64_t iteration, int waiting,
                            bool unreleased) {
    const std::string what = fmt::format("  task '{}' #{} tags[{}] of replayed iteration {}",
                                         t.name, id, tags_text(t.tags), iteration);
    if (waiting > 0) {
      out << fmt::format("{} waits for {} earlier task(s){}\n", what, waiting,
                         unreleased ? " (its iteration is not released yet)" : "");
    } else if (t.holds.load(std::memory_order_acquire) > 0 &&
               t.held.load(std::memory_order_relaxed)) {
      out << fmt::format("{} ran and holds its completion\n", what);
    }
  };
  if (r.fixed) {
    // Each node's next instance: waiting for predecessors, running, or holding.
    const auto completed = [&](std::uint32_t p) {
      return r.progress[p].value.load(std::memory_order_acquire);
    };
    for (std::uint32_t j = 0; j < r.width; ++j) {
      const std::int64_t c = completed(j);
      if (c == r.end - r.first) continue;
      int waiting = 0;
      r.predecessors_satisfy(j, c, [&](std::uint32_t p, std::int64_t n) {
        waiting += completed(p) < n ? 1 : 0;
        return true;
      });
      const std::int64_t m = r.first + c;
      describe(r.instances_of(m)[j], r.id_of(j, m), m, waiting, false);
    }
    return;
  }
  for (std::int64_t s = 0; s < Replay::kWindow; ++s) {
    const Replay::Slot& slot = r.slots[s];
    if (!slot.armed || r.slot_complete(static_cast<std::size_t>(s))) continue;
    const Task* instances = &r.instances[static_cast<std::size_t>(s) * r.width];
    for (std::uint32_t j = 0; j < r.width; ++j) {
      const Task& t = instances[j];
      const int waiting = t.pending.load(std::memory_order_acquire) & ~kClaimed;
      describe(t, t.id, slot.iteration, waiting, slot.iteration >= r.released_end);
    }
  }
}

}  // namespace tessera::detail
