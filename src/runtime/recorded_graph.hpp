#pragma once
// A recorded iteration graph (Runtime::begin_recording / end_recording) and the state of
// one replay of it (Runtime::replay).
//
// Recording keeps each submitted task as a node, with its body and access records, and
// derives the node-to-node edges once: within an iteration, and from an iteration to the
// next (any later dependency follows from those). A replay keeps a ring of `kWindow`
// slots of task instances and runs them on one of two schedules:
// - fixed (ReplaySchedule::fixed, and always on one thread): every node runs on one
//   thread, chosen when the replay starts, which walks its share of each iteration in
//   RecordedGraph::order. A node's instances run one after the other; each node counts
//   its completed instances (written by one thread at a time, with a plain store), and
//   an instance is ready once its predecessors' counts show them complete. No counter is
//   written by two threads, so a step passes from thread to thread in one cache line.
// - balanced (ReplaySchedule::balanced): a counter per instance counts the predecessors
//   still running, and the main thread arms iteration m + 1 (sets its counters) and then
//   releases iteration m (its nodes without a predecessor in the same iteration), so
//   every counter is set before any predecessor can reach it; ready instances go through
//   the work-stealing queues. A slot is armed again only after all its instances
//   completed.
// A replay's arrays live in ReplayStorage, which the scheduler keeps from one replay to
// the next: on this project's VMs, touching freshly allocated memory costs tens of
// microseconds per replay, as much as a hundred replayed steps.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/owned_counter.hpp"
#include "runtime/task.hpp"

namespace tessera::detail {

class Scheduler;

struct RecordedGraph {
  struct Node {
    std::unique_ptr<Task> task;                  // name, tags, priority, body and access records
    std::vector<std::uint32_t> successors;       // in the same iteration
    std::vector<std::uint32_t> next_successors;  // in the next iteration
    std::vector<std::uint32_t> after;            // predecessors in the same iteration
    std::vector<std::uint32_t> after_previous;   // predecessors in the previous iteration
    /// Without a predecessor in its own iteration, the replay loop releases the node.
    bool released_by_loop() const { return after.empty(); }
  };
  const Scheduler* owner = nullptr;
  std::vector<Node> nodes;
  /// The order a fixed-schedule replay walks an iteration's nodes in (Scheduler::run_share):
  /// topological within the iteration, taking communication nodes as soon as their
  /// predecessors are placed, then the compute nodes a communication node waits for (packs,
  /// unpacks that free a receive buffer), then high-priority ones, each class in submission
  /// order.
  std::vector<std::uint32_t> order;
};

/// Instances of one node completed so far (fixed schedule): written by the thread that
/// completes the node's instance, on a cache line of its own.
struct alignas(64) NodeProgress {
  std::atomic<std::int64_t> value{0};
};

/// The arrays of a replay, kept by the scheduler from one replay to the next. Each call
/// returns an array of at least `n` elements, grown if needed; counters come zeroed.
class ReplayStorage {
 public:
  Task* instances(std::size_t n) {
    if (n > instance_count_) {
      instances_ = std::make_unique<Task[]>(n);
      instance_count_ = n;
    }
    return instances_.get();
  }
  OwnedCounter* done_counters(std::size_t n) { return zeroed(done_, done_count_, n); }
  NodeProgress* progress(std::size_t n) { return zeroed(progress_, progress_count_, n); }

 private:
  template <class Counter>
  static Counter* zeroed(std::unique_ptr<Counter[]>& array, std::size_t& count, std::size_t n) {
    if (n > count) {
      array = std::make_unique<Counter[]>(n);
      count = n;
    }
    for (std::size_t i = 0; i < n; ++i) array[i].value.store(0, std::memory_order_relaxed);
    return array.get();
  }
  std::unique_ptr<Task[]> instances_;
  std::size_t instance_count_ = 0;
  std::unique_ptr<OwnedCounter[]> done_;
  std::size_t done_count_ = 0;
  std::unique_ptr<NodeProgress[]> progress_;
  std::size_t progress_count_ = 0;
};

struct Replay {
  /// Iterations with instances at once: up to kWindow - 2 may run while the main thread
  /// arms the next and releases another (balanced); an instance starts only once every
  /// instance kWindow - 1 iterations before it completed (fixed). Either way at most
  /// kWindow - 1 iterations run at once.
  static constexpr std::int64_t kWindow = 4;

  /// Main-thread bookkeeping of one slot.
  struct Slot {
    bool armed = false;
    std::int64_t iteration = 0;     // the iteration armed in the slot
    std::uint64_t done_before = 0;  // completions counted in the slot before it was armed
  };

  Replay(const Replay&) = delete;  // instances point back to their replay
  Replay& operator=(const Replay&) = delete;
  Replay(const RecordedGraph& g, std::int64_t first_iteration, std::int64_t count, int threads,
         bool fixed_schedule, ReplayStorage& storage)
      : graph(g),
        first(first_iteration),
        end(first_iteration + count),
        width(static_cast<std::uint32_t>(g.nodes.size())),
        threads(threads),
        fixed(fixed_schedule),
        instances(storage.instances(static_cast<std::size_t>(kWindow) * width)),
        done(storage.done_counters(static_cast<std::size_t>(kWindow * threads))),
        progress(storage.progress(width)) {
    // What an instance shares with its node is set once; arming sets the rest.
    for (std::int64_t slot = 0; slot < kWindow; ++slot) {
      for (std::uint32_t j = 0; j < width; ++j) {
        const Task& node = *g.nodes[j].task;
        Task& t = instances[static_cast<std::size_t>(slot) * width + j];
        t.name = node.name;
        t.tags = node.tags;
        t.priority = node.priority;
        t.main_only = node.main_only;
        t.ordered = node.ordered;
        t.order_key = node.order_key;
        t.replay = this;
        t.node = j;
        t.slot = static_cast<std::uint32_t>(slot);
      }
    }
  }

  static_assert((kWindow & (kWindow - 1)) == 0, "slot_of masks: kWindow is a power of two");
  /// The slot of an iteration of this replay (never before `first`).
  std::size_t slot_of(std::int64_t iteration) const {
    return static_cast<std::size_t>(iteration - first) & static_cast<std::size_t>(kWindow - 1);
  }
  Task* instances_of(std::int64_t iteration) const {
    return &instances[slot_of(iteration) * width];
  }
  /// Calls f(Task&) for each successor instance of `t`: in its iteration, and in the next
  /// one (the next slot), which was armed before any task of t's iteration could finish.
  template <class F>
  void for_each_successor(const Task& t, F&& f) const {
    const RecordedGraph::Node& node = graph.nodes[t.node];
    Task* same = &instances[t.slot * width];
    for (std::uint32_t j : node.successors) f(same[j]);
    if (t.iteration + 1 == end) return;
    Task* next = &instances[((t.slot + 1) & static_cast<std::uint32_t>(kWindow - 1)) * width];
    for (std::uint32_t j : node.next_successors) f(next[j]);
  }
  /// Instances completed in `slot` since the replay began, summed over threads.
  std::uint64_t completed_in(std::size_t slot) const {
    std::uint64_t sum = 0;
    for (int w = 0; w < threads; ++w)
      sum += done[slot * static_cast<std::size_t>(threads) + w].load();
    return sum;
  }
  /// Counts a completion in `slot` by thread `worker`: each thread has its own counter,
  /// so finishing tasks on several threads shares no cache line.
  void count_completion(std::size_t slot, int worker) {
    done[slot * static_cast<std::size_t>(threads) + static_cast<std::size_t>(worker)].increment();
  }
  /// Whether every instance armed in `slot` completed (main thread).
  bool slot_complete(std::size_t slot) const {
    return completed_in(slot) - slots[slot].done_before == width;
  }
  /// Calls need(p, n) for each predecessor p of node j's instance c (iteration
  /// first + c) in turn, where n is how many instances of p must have completed for it
  /// (fixed schedule): c + 1 for one in the same iteration, c for one in the previous.
  /// Stops at the first call returning false; returns whether none did.
  template <class Need>
  bool predecessors_satisfy(std::uint32_t j, std::int64_t c, Need&& need) const {
    const RecordedGraph::Node& node = graph.nodes[j];
    for (std::uint32_t p : node.after) {
      if (!need(p, c + 1)) return false;
    }
    if (c == 0) return true;  // the replay's first iteration waits for nothing before it
    for (std::uint32_t p : node.after_previous) {
      if (!need(p, c)) return false;
    }
    return true;
  }
  /// The task id of node j's instance in iteration m (fixed schedule: ids are set aside
  /// for the whole replay when it starts).
  std::uint64_t id_of(std::uint32_t j, std::int64_t m) const {
    return first_id + static_cast<std::uint64_t>(m - first) * width + j + 1;
  }

  const RecordedGraph& graph;
  const std::int64_t first;
  const std::int64_t end;
  const std::uint32_t width;  // nodes per iteration
  const int threads;
  const bool fixed;               // fixed schedule (Scheduler::run_share), else balanced
  std::int64_t released_end = 0;  // iterations before this one are released (main thread)
  Task* const instances;          // [slot * width + node]
  Slot slots[kWindow];
  OwnedCounter* const done;  // [slot * threads + thread]
  // Fixed schedule only:
  NodeProgress* const progress;                    // [node]
  std::vector<std::vector<std::uint32_t>> shares;  // [thread]: its nodes, in graph.order
  std::uint64_t first_id = 0;                      // ids after it are this replay's
  std::atomic<int> workers_out{0};                 // worker threads done with their share
};

}  // namespace tessera::detail
