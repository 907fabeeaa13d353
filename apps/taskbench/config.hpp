#pragma once
// Everything a Task Bench run is configured with (one task graph), and the checks of the
// values that do not belong to the graph's shape.

#include <optional>
#include <string>

#include <fmt/format.h>

#include "kernel.hpp"
#include "payload.hpp"
#include "task_graph.hpp"

namespace tessera::taskbench {

struct RunConfig {
  TaskGraph graph;
  KernelConfig kernel;
  long output_bytes = static_cast<long>(kPairBytes);  ///< -output: bytes of each task's output
  long scratch_bytes = 0;  ///< -scratch: bytes of scratch per point (memory_bound)
  long nodes = 0;          ///< -nodes: > 0 adds Task Bench's local/nonlocal estimates
  /// tessera's: replay the timesteps where the graph repeats (dataflow only) rather than
  /// submitting each of their tasks.
  bool replay = true;
};

/// Checks the values Task Bench checks when parsing, and what its kernels assert, then the
/// graph (check_graph), its dependency lists for the points [first_point, end_point) only
/// (-1: all points). std::nullopt if the run is well formed.
inline std::optional<GraphProblem> check_config(const RunConfig& c, long first_point = 0,
                                                long end_point = -1) {
  const TaskGraph& g = c.graph;
  if (g.timesteps <= 0)
    return GraphProblem{"-steps", fmt::format("must be > 0 (got {})", g.timesteps)};
  if (g.max_width <= 0)
    return GraphProblem{"-width", fmt::format("must be > 0 (got {})", g.max_width)};
  if (g.radix < 0) return GraphProblem{"-radix", fmt::format("must be >= 0 (got {})", g.radix)};
  if (g.period < 0) return GraphProblem{"-period", fmt::format("must be >= 0 (got {})", g.period)};
  if (!(g.fraction >= 0 && g.fraction <= 1)) {
    return GraphProblem{"-fraction", fmt::format("must be in [0, 1] (got {})", g.fraction)};
  }
  const KernelConfig& k = c.kernel;
  if (k.iterations < 0)
    return GraphProblem{"-iter", fmt::format("must be >= 0 (got {})", k.iterations)};
  if (k.samples < 0)
    return GraphProblem{"-sample", fmt::format("must be >= 0 (got {})", k.samples)};
  if (!(k.imbalance >= 0 && k.imbalance <= 2)) {
    return GraphProblem{"-imbalance", fmt::format("must be in [0, 2] (got {})", k.imbalance)};
  }
  if (c.output_bytes < static_cast<long>(kPairBytes)) {
    return GraphProblem{"-output",
                        fmt::format("must be >= {} (got {})", kPairBytes, c.output_bytes)};
  }
  if (c.scratch_bytes < 0 || c.scratch_bytes % 8 != 0) {
    return GraphProblem{
        "-scratch", fmt::format("must be a non-negative multiple of 8 (got {})", c.scratch_bytes)};
  }
  if (c.nodes < 0) return GraphProblem{"-nodes", fmt::format("must be > 0 (got {})", c.nodes)};
  if (k.type == KernelType::memory_bound) {
    if (c.scratch_bytes == 0)
      return GraphProblem{"-scratch", "kernel memory_bound needs -scratch > 0"};
    if (k.samples == 0) return GraphProblem{"-sample", "kernel memory_bound needs -sample > 0"};
    if ((c.scratch_bytes / k.samples) % 2 != 0) {
      return GraphProblem{"-scratch", fmt::format("kernel memory_bound needs -scratch / -sample to "
                                                  "be even (got {} / {})",
                                                  c.scratch_bytes, k.samples)};
    }
  }
  return check_graph(g, first_point, end_point);
}

}  // namespace tessera::taskbench
