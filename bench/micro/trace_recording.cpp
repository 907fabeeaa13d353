// Cost per task of the observers: RunStats alone (what every run carries) and RunStats
// with TraceRecorder (a run with --trace), attached the way Session attaches them; and
// the cost per task of writing the trace file, formatted on the calling thread or by the
// threads of a runtime. The observer callbacks are driven directly (one thread, no
// runtime) with a jacobi7-like task: 2 tags, 3 accesses, so the numbers hold only what
// observing costs. Runs as one MPI process (singleton MPI_Init).
// Counters: ns_per_task (wall time per task).

#include <benchmark/benchmark.h>
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "tessera/obs/run_stats.hpp"
#include "tessera/obs/trace_recorder.hpp"
#include "tessera/runtime/runtime.hpp"

namespace {

using namespace tessera;

constexpr int kTasksPerWrite = 100'000;

/// Submit, ready, begin, end of one task, as the runtime reports them.
class TaskDriver {
 public:
  void run_one(Observer& observer) {
    const TaskInfo info{++id_, "halo.copy", &tags_, Priority::normal, false, accesses_};
    observer.on_submit(info);
    observer.on_ready(info, 0);
    observer.on_begin(info, 0);
    benchmark::ClobberMemory();
    observer.on_end(info, 0);
  }

 private:
  std::uint64_t id_ = 0;
  TaskTags tags_{4, 12};
  std::array<AccessInfo, 3> accesses_{AccessInfo{19, AccessMode::read},
                                      AccessInfo{130, AccessMode::readwrite},
                                      AccessInfo{2177, AccessMode::read}};
};

/// Drives one task per benchmark iteration through `observer`.
void record_tasks(benchmark::State& state, Observer& observer) {
  TaskDriver driver;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) driver.run_one(observer);
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  state.counters["ns_per_task"] = ns / static_cast<double>(state.iterations());
}

void BM_RecordStatsOnly(benchmark::State& state) {
  RunStats stats(1);
  record_tasks(state, stats);
}
BENCHMARK(BM_RecordStatsOnly);

void BM_RecordStatsAndTrace(benchmark::State& state) {
  RunStats stats(1);
  TraceRecorder trace(1, MPI_COMM_WORLD, &stats);
  record_tasks(state, trace);
}
BENCHMARK(BM_RecordStatsAndTrace);

/// Formatting and writing a trace of kTasksPerWrite tasks to a new temporary file, with
/// state.range(0) formatting threads (0: on the calling thread, no runtime).
void BM_WriteTrace(benchmark::State& state) {
  RunStats stats(1);
  TraceRecorder trace(1, MPI_COMM_WORLD, &stats);
  TaskDriver driver;
  for (int i = 0; i < kTasksPerWrite; ++i) driver.run_one(trace);
  const int formatting_threads = static_cast<int>(state.range(0));
  std::unique_ptr<Runtime> formatters;
  if (formatting_threads > 0) {
    formatters = std::make_unique<Runtime>(RuntimeOptions{.threads = formatting_threads});
  }
  const std::string path = "/tmp/tessera-bench-trace." + std::to_string(::getpid()) + ".json";
  double seconds = 0;
  for (auto _ : state) {
    // A fresh file each time, as a run writes one: replacing a file costs extra on ext4.
    std::remove(path.c_str());
    const auto start = std::chrono::steady_clock::now();
    trace.write(path, MPI_COMM_WORLD, formatters.get());
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    seconds += took.count();
    state.SetIterationTime(took.count());
  }
  state.counters["ns_per_task"] = seconds * 1e9 / (state.iterations() * double{kTasksPerWrite});
  std::remove(path.c_str());
}
BENCHMARK(BM_WriteTrace)
    ->ArgName("formatting_threads")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
