#pragma once
// Task Bench's printed output, line for line, so its scripts (chart_metg.py and friends)
// read tessera's output unchanged: the configuration blocks printed before the run (one per
// task graph, each followed by its -v dependency listing), and the summary printed after
// it, whose counts add up every graph.

#include <algorithm>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "config.hpp"

namespace tessera::taskbench {

/// The configuration block of task graph number `number` (1 for the first).
inline std::string graph_configuration_text(const RunConfig& c, long number) {
  const TaskGraph& g = c.graph;
  std::string s = fmt::format("    Task Graph {}:\n", number);
  s += fmt::format("      Time Steps: {}\n", g.timesteps);
  s += fmt::format("      Max Width: {}\n", g.max_width);
  s += fmt::format("      Dependence Type: {}\n", to_string(g.type));
  s += fmt::format("      Radix: {}\n", g.radix);
  s += fmt::format("      Period: {}\n", g.period);
  s += fmt::format("      Fraction Connected: {:f}\n", g.fraction);
  s += "      Kernel:\n";
  s += fmt::format("        Type: {}\n", to_string(c.kernel.type));
  s += fmt::format("        Iterations: {}\n", c.kernel.iterations);
  s += fmt::format("        Samples: {}\n", c.kernel.samples);
  s += fmt::format("        Imbalance: {:f}\n", c.kernel.imbalance);
  s += fmt::format("      Output Bytes: {}\n", c.output_bytes);
  s += fmt::format("      Scratch Bytes: {}\n", c.scratch_bytes);
  return s;
}

/// "Running Task Benchmark" and the configuration of one task graph.
inline std::string configuration_text(const RunConfig& c) {
  return "Running Task Benchmark\n  Configuration:\n" + graph_configuration_text(c, 1);
}

/// -v: every timestep's points and each point's inputs.
inline std::string dependency_listing(const DependencyTable& table) {
  const TaskGraph& g = table.graph();
  std::string s;
  for (long t = 0; t < g.timesteps; ++t) {
    const long offset = g.offset_at(t), width = g.width_at(t);
    s += fmt::format(
        "      Timestep {} (offset {}, width {}, last offset {}, last width {}):\n        Points:",
        t, offset, width, g.offset_at(t - 1), g.width_at(t - 1));
    for (long p = offset; p < offset + width; ++p) s += fmt::format(" {}", p);
    s += "\n        Dependencies:\n";
    for (long p = offset; p < offset + width; ++p) {
      s += fmt::format("          Point {}:", p);
      table.for_each_input(t, p, [&](long y) { s += fmt::format(" {}", y); });
      s += "\n";
    }
  }
  return s;
}

/// The numbers of the summary, counted the way Task Bench counts them.
struct Totals {
  long long tasks = 0;
  long long dependencies = 0;
  long long local_dependencies = 0;     ///< with -nodes
  long long nonlocal_dependencies = 0;  ///< with -nodes
  long long flops = 0;
  long long bytes = 0;
  long long local_transfer = 0;     ///< with -nodes: local dependencies x output bytes
  long long nonlocal_transfer = 0;  ///< with -nodes: nonlocal dependencies x output bytes

  /// Adds another graph's (or another rank's) counts.
  Totals& operator+=(const Totals& o) {
    tasks += o.tasks;
    dependencies += o.dependencies;
    local_dependencies += o.local_dependencies;
    nonlocal_dependencies += o.nonlocal_dependencies;
    flops += o.flops;
    bytes += o.bytes;
    local_transfer += o.local_transfer;
    nonlocal_transfer += o.nonlocal_transfer;
    return *this;
  }
};

/// The totals over the points [first, end) of every timestep (-1: all points); the sums
/// over ranks' point ranges give the whole graph's (every field is an integer count).
inline Totals count_totals(const RunConfig& c, long first_point = 0, long end_point = -1) {
  const TaskGraph& g = c.graph;
  if (end_point < 0) end_point = g.max_width;
  Totals totals;
  for (long t = 0; t < g.timesteps; ++t) {
    const long offset = std::max(g.offset_at(t), first_point);
    const long width = std::min(g.offset_at(t) + g.width_at(t), end_point) - offset;
    if (width <= 0) continue;
    const long last_first = g.offset_at(t - 1);
    const long last_last = last_first + g.width_at(t - 1) - 1;
    const long dset = t > 0 ? g.dependence_set_at(t) : 0;
    totals.tasks += width;
    for (long p = offset; p < offset + width; ++p) {
      totals.flops += flops_per_task(c.kernel, g.graph_index, t, p);
      totals.bytes += bytes_per_task(c.kernel, c.scratch_bytes);
      if (t == 0) continue;
      // Task Bench's -nodes estimate: point p lives on node floor(p * nodes / width).
      long node_first = 0, node_last = -1;
      if (c.nodes > 0) {
        const long node = p * c.nodes / g.max_width;
        node_first = node * g.max_width / c.nodes;
        node_last = (node + 1) * g.max_width / c.nodes - 1;
      }
      for (const PointRange& r : g.dependencies(dset, p)) {
        const long first = std::max(r.first, last_first), last = std::min(r.last, last_last);
        if (first > last) continue;
        totals.dependencies += last - first + 1;
        if (c.nodes > 0) {
          const long local =
              std::max(0L, std::min(last, node_last) - std::max(first, node_first) + 1);
          totals.local_dependencies += local;
          totals.nonlocal_dependencies += last - first + 1 - local;
        }
      }
    }
  }
  totals.local_transfer = totals.local_dependencies * c.output_bytes;
  totals.nonlocal_transfer = totals.nonlocal_dependencies * c.output_bytes;
  return totals;
}

/// The summary lines Task Bench prints after a run that took `elapsed` seconds; `totals`
/// adds up every graph of the run (each graph's transfer counted with its own output
/// size), `nodes` is -nodes (0: no estimate).
inline std::string summary_text(long nodes, const Totals& totals, double elapsed) {
  std::string s;
  s += fmt::format("Total Tasks {}\n", totals.tasks);
  s += fmt::format("Total Dependencies {}\n", totals.dependencies);
  if (nodes > 0) {
    s += fmt::format("  Local Dependencies {} (estimated)\n", totals.local_dependencies);
    s += fmt::format("  Nonlocal Dependencies {} (estimated)\n", totals.nonlocal_dependencies);
    s += fmt::format("  Number of Nodes (used for estimate) {}\n", nodes);
  } else {
    s += "  Unable to estimate local/nonlocal dependencies\n";
  }
  s += fmt::format("Total FLOPs {}\n", totals.flops);
  s += fmt::format("Total Bytes {}\n", totals.bytes);
  s += fmt::format("Elapsed Time {:e} seconds\n", elapsed);
  s += fmt::format("FLOP/s {:e}\n", static_cast<double>(totals.flops) / elapsed);
  s += fmt::format("B/s {:e}\n", static_cast<double>(totals.bytes) / elapsed);
  s += "Transfer (estimated):\n";
  if (nodes > 0) {
    const long long local = totals.local_transfer;
    const long long nonlocal = totals.nonlocal_transfer;
    s += fmt::format("  Local Bytes {}\n", local);
    s += fmt::format("  Nonlocal Bytes {}\n", nonlocal);
    s += fmt::format("  Local Bandwidth {:e} B/s\n", static_cast<double>(local) / elapsed);
    s += fmt::format("  Nonlocal Bandwidth {:e} B/s\n", static_cast<double>(nonlocal) / elapsed);
  } else {
    s += "  Unable to estimate local/nonlocal transfer\n";
  }
  return s;
}

/// The summary of a run of the single graph `c`.
inline std::string summary_text(const RunConfig& c, const Totals& totals, double elapsed) {
  return summary_text(c.nodes, totals, elapsed);
}

}  // namespace tessera::taskbench
