#include "graph_set_execution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace tessera::taskbench {

MemoryEstimate GraphSetExecution::memory_needed(std::span<const RunConfig> configs, int ranks) {
  MemoryEstimate need;
  for (const RunConfig& c : configs) {
    for (const auto& [what, bytes] : GraphExecution::memory_needed(c, ranks).items) {
      need.add(what, bytes);
    }
  }
  return need;
}

GraphSetExecution::GraphSetExecution(Session& session, std::span<const RunConfig> configs,
                                     CorruptTask corrupt, long corrupt_graph)
    : session_(session) {
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const std::string label = configs.size() > 1 ? fmt::format("graph {}: ", i + 1) : "";
    graphs_.push_back(std::make_unique<GraphExecution>(
        session, configs[i], static_cast<long>(i) == corrupt_graph ? corrupt : CorruptTask{},
        label));
  }
  // The common steady range of the graphs that repeat themselves: those that would be
  // replayed alone join; while the range they share holds fewer than two periods, the one
  // with the shortest steady stretch of its own leaves (the last timestep has no
  // consumers, so it differs from the others and is left out).
  const auto periods = [&](std::size_t i, long first, long period) {
    return std::max(0L, (graphs_[i]->config().graph.timesteps - 1 - first) / period);
  };
  replayed_.assign(graphs_.size(), false);
  for (std::size_t i = 0; i < graphs_.size(); ++i) {
    const auto start = graphs_[i]->steady_start();
    replayed_[i] = start && periods(i, start->first, start->period) >= 2;
  }
  for (;;) {
    long first = 0, period = 1, count = -1;
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
      if (!replayed_[i]) continue;
      const auto start = graphs_[i]->steady_start();
      first = std::max(first, start->first);
      period = std::lcm(period, start->period);
    }
    std::size_t shortest = graphs_.size();
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
      if (!replayed_[i]) continue;
      const long fits = periods(i, first, period);
      if (count < 0 || fits < count) {
        count = fits;
        shortest = i;
      }
    }
    if (count < 0) return;  // no graph replays
    if (count >= 2) {
      steady_ = {first, period, count};
      break;
    }
    replayed_[shortest] = false;
  }
  for (std::size_t i = 0; i < graphs_.size(); ++i) {
    if (replayed_[i]) graphs_[i]->set_steady_range(steady_);
  }
}

void GraphSetExecution::submit_graphs() {
  Runtime& runtime = session_.runtime();
  long rounds = 0;
  for (const auto& g : graphs_) {
    g->begin_execution();
    rounds = std::max(rounds, g->config().graph.timesteps);
  }
  const long steady_end = steady_.first + steady_.count * steady_.period;
  for (long t = 0; t < rounds; ++t) {
    if (steady_.count > 0 && t == steady_.first) {
      if (steady_graph_.empty()) {
        runtime.begin_recording();
        for (long k = 0; k < steady_.period; ++k) {
          for (std::size_t i = 0; i < graphs_.size(); ++i) {
            if (replayed_[i]) graphs_[i]->record_timestep(t + k);
          }
        }
        steady_graph_ = runtime.end_recording();
      }
      runtime.replay(steady_graph_, 0, steady_.count);
    }
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
      if (t >= graphs_[i]->config().graph.timesteps) continue;
      if (replayed_[i] && t >= steady_.first && t < steady_end) continue;
      graphs_[i]->submit_timestep(t);
    }
  }
}

long long GraphSetExecution::inputs_verified() const {
  long long sum = 0;
  for (const auto& g : graphs_) sum += g->inputs_verified();
  return sum;
}

long long GraphSetExecution::failures() const {
  long long sum = 0;
  for (const auto& g : graphs_) sum += g->failures();
  return sum;
}

std::string GraphSetExecution::first_failure() const {
  for (const auto& g : graphs_) {
    if (g->failures() > 0) return g->first_failure();
  }
  return {};
}

}  // namespace tessera::taskbench
