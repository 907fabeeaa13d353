// What measuring cost per block adds to a task: the stencil of runtime_overhead (Task
// Bench's stencil_1d at width 2, kSteps timesteps of two tasks each reading both outputs of
// the timestep before) with every task naming a cost slot of an attached CostTable
// (costs=1) or none (costs=0), submitted (replay=0) or replayed (replay=1), with RunStats
// attached (stats=1: the table reuses its clock reads) or not (stats=0: the runtime reads
// the clock twice per costed task). Tasks are empty, so the difference is the whole cost.
// Counters: items_processed (tasks) and ns_per_task (wall time per task).

#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "tessera/obs/run_stats.hpp"
#include "tessera/runtime/cost_table.hpp"
#include "tessera/runtime/runtime.hpp"

namespace {

constexpr long kSteps = 500;

void stencil(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const bool replay = state.range(1) != 0;
  const bool with_stats = state.range(2) != 0;
  const bool costs = state.range(3) != 0;
  tessera::Runtime runtime({.threads = threads});
  tessera::RunStats stats(runtime.threads());
  tessera::CostTable table(runtime.threads(), 2);
  if (with_stats) runtime.set_observer(&stats);
  if (costs) runtime.set_cost_table(&table);
  std::vector<tessera::Handle> handles;
  for (int i = 0; i < 4; ++i) handles.push_back(runtime.create_handle("out"));
  const auto out = [&](long slot, long x) {
    return handles[static_cast<std::size_t>(2 * slot + x)];
  };
  const auto submit_step = [&](long t) {
    for (long x = 0; x < 2; ++x) {
      tessera::TaskAttributes attributes;
      attributes.cost_slot = static_cast<std::int32_t>(x);
      runtime.submit(
          "point",
          {tessera::read(out((t + 1) % 2, 0)), tessera::read(out((t + 1) % 2, 1)),
           tessera::write(out(t % 2, x))},
          [] { benchmark::ClobberMemory(); }, attributes);
    }
  };
  tessera::IterationGraph graph;
  if (replay) {
    runtime.begin_recording();
    submit_step(0);
    submit_step(1);
    graph = runtime.end_recording();
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (replay) {
      runtime.replay(graph, 0, kSteps / 2);
    } else {
      for (long t = 0; t < kSteps; ++t) submit_step(t);
      runtime.wait_all();
    }
  }
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const double tasks = static_cast<double>(state.iterations()) * 2 * kSteps;
  state.SetItemsProcessed(static_cast<std::int64_t>(tasks));
  state.counters["ns_per_task"] = ns / tasks;
  runtime.set_observer(nullptr);
  runtime.set_cost_table(nullptr);
}

BENCHMARK(stencil)
    ->ArgNames({"threads", "replay", "stats", "costs"})
    ->ArgsProduct({{1, 2}, {0, 1}, {0, 1}, {0, 1}})
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
