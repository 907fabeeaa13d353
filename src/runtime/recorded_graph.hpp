#pragma once
// A recorded iteration graph (Runtime::begin_recording / end_recording) and the state of
// one replay of it (Runtime::replay).
//
// Recording keeps each submitted task as a node, with its body and access records, and
// derives the node-to-node edges once: within an iteration, and from an iteration to the
// next (any later dependency follows from those). A replay runs iterations through a
// ring of `kWindow` slots of task instances: a counter per instance counts the
// predecessors still running, and the main thread arms iteration m + 1 (sets its
// counters) and then releases iteration m (its nodes without a predecessor in the same
// iteration), so every counter is set before any predecessor can reach it.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/task.hpp"

namespace tessera::detail {

class Scheduler;

struct RecordedGraph {
  struct Node {
    std::unique_ptr<Task> task;  // name, tags, priority, body and access records
    std::vector<std::uint32_t> successors;       // in the same iteration
    std::vector<std::uint32_t> next_successors;  // in the next iteration
    int predecessors = 0;       // in the same iteration
    int prior_predecessors = 0;  // in the previous iteration
    /// Without a predecessor in its own iteration, the replay loop releases the node.
    bool released_by_loop() const { return predecessors == 0; }
  };
  const Scheduler* owner = nullptr;
  std::vector<Node> nodes;
};

struct Replay {
  /// Iterations with instances at once: up to kWindow - 2 may run while the main thread
  /// arms the next and releases another.
  static constexpr std::int64_t kWindow = 4;

  struct alignas(64) Slot {
    std::atomic<std::uint32_t> done{0};  // instances of the slot's iteration completed
    std::int64_t iteration = -1;         // main thread only
  };

  Replay(const RecordedGraph& g, std::int64_t first_iteration, std::int64_t count)
      : graph(g),
        first(first_iteration),
        end(first_iteration + count),
        width(static_cast<std::uint32_t>(g.nodes.size())),
        instances(std::make_unique<Task[]>(static_cast<std::size_t>(kWindow) * width)),
        slots(std::make_unique<Slot[]>(kWindow)) {}

  std::size_t slot_of(std::int64_t iteration) const {
    return static_cast<std::size_t>((iteration - first) % kWindow);
  }
  Task* instances_of(std::int64_t iteration) const {
    return &instances[slot_of(iteration) * width];
  }

  const RecordedGraph& graph;
  const std::int64_t first;
  const std::int64_t end;
  const std::uint32_t width;  // nodes per iteration
  std::unique_ptr<Task[]> instances;
  std::unique_ptr<Slot[]> slots;
};

}  // namespace tessera::detail
