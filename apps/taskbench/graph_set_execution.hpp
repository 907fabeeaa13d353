#pragma once
// The task graphs of one run (Task Bench's -and) as one tessera task flow.
//
// Each graph has its own buffers and handles (GraphExecution), so no task of one graph
// depends on a task of another and the runtime overlaps them freely. Submission goes in
// rounds: round t submits timestep t of graph 1, then of graph 2, ..., skipping graphs
// with fewer timesteps. Under bsp and forkjoin, whose phases complete before the next one
// starts, that round order is the order the graphs' timesteps run in.
//
// Under dataflow, the graphs that would be replayed alone (at least two periods of
// repeating timesteps) are replayed together as one iteration graph: it starts at the
// latest of their steady starts, its period is the least common multiple of their
// periods, and it covers as many whole periods as the shortest of them has before its
// last timestep. While that is fewer than two periods, the graph with the shortest
// stretch leaves the replay (its timesteps are submitted). A replay waits for the tasks
// submitted before it, so the graphs it leaves out overlap the replayed ones only before
// and after it.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph_execution.hpp"
#include "tessera/session.hpp"

namespace tessera::taskbench {

class GraphSetExecution {
 public:
  /// The bytes one of `ranks` ranks needs for all of `configs` (see
  /// GraphExecution::memory_needed).
  static MemoryEstimate memory_needed(std::span<const RunConfig> configs, int ranks);

  /// Allocates every graph's buffers and handles; `configs` must have passed
  /// check_config, and configs[i].graph.graph_index must be i. `corrupt` applies to graph
  /// `corrupt_graph` (0-based).
  GraphSetExecution(Session& session, std::span<const RunConfig> configs, CorruptTask corrupt,
                    long corrupt_graph);

  /// Submits one execution of every graph, executing tasks while it goes (the caller
  /// waits for the rest with the execution model's barrier). Main thread only.
  void submit_graphs();

  const std::vector<std::unique_ptr<GraphExecution>>& graphs() const { return graphs_; }
  /// The timesteps replayed per execution (count 0: none), the same for every replayed
  /// graph.
  const GraphExecution::SteadyRange& steady_range() const { return steady_; }
  /// Whether graph i's steady range is replayed.
  bool replayed(std::size_t i) const { return replayed_[i]; }

  /// Inputs checked so far by this rank's tasks, over all graphs.
  long long inputs_verified() const;
  /// Failures found so far on this rank over all graphs, and the first one ("" if none).
  long long failures() const;
  std::string first_failure() const;

 private:
  Session& session_;
  std::vector<std::unique_ptr<GraphExecution>> graphs_;
  std::vector<bool> replayed_;
  GraphExecution::SteadyRange steady_;
  IterationGraph steady_graph_;  // recorded by the first execution
};

}  // namespace tessera::taskbench
