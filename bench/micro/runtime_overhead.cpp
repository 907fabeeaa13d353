// Cost per task of tessera's runtime (submit + dependency analysis + run + release) for
// empty tasks, against the same task graphs written with OpenMP tasks and `depend`
// clauses (libgomp), in one binary so the ratios come from one run.
//
// Every benchmark iteration submits one batch of kBatch tasks and waits for all of them,
// so the time of an iteration divided by its task count is the whole life of a task.
// Shapes (identical for both runtimes):
//   access/k   kBatch independent tasks, task i touches k handles of its own: one write
//              and k-1 reads (k = 0, 1, 2, 4). Nothing orders two tasks of one batch.
//              Also with batches of kSmallBatch tasks (k = 2): libgomp runs a task at once,
//              in the creating thread, when more than 64 x threads tasks are queued, so
//              only batches below that size measure its deferred (queued) path.
//   chain      kBatch tasks that all readwrite one handle: each waits for the one before.
//   fan        a root writes one handle, kBatch-2 tasks read it and each write their own
//              output, a sink readwrites the root's handle (it waits for every reader).
//   stencil    Task Bench's stencil_1d at width 2: kBatch / 2 timesteps of two tasks,
//              each reading both outputs of the timestep before (double-buffered) and
//              writing its own; tessera submits every task (replay=0) or replays the
//              timesteps as a recorded iteration graph of two timesteps (replay=1),
//              with RunStats attached as every tessera app has it (stats=1) or not.
// Counters: items_processed (tasks) and ns_per_task (wall time per task).

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <omp.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <vector>

#include "tessera/obs/run_stats.hpp"
#include "tessera/runtime/runtime.hpp"

namespace {

constexpr int kBatch = 1000;
constexpr int kMaxAccesses = 4;
constexpr int kSmallBatch = 60;

// The body of every task: an empty asm statement the compiler cannot drop, so neither
// compiler nor OpenMP lowering can elide an "empty" task.
inline void empty_body() {
  benchmark::ClobberMemory();
}

/// Wall-clock time of the benchmark loop, for the ns_per_task counter.
class LoopClock {
 public:
  LoopClock() : start_(std::chrono::steady_clock::now()) {}
  void set_task_counters(benchmark::State& state, int tasks_per_iteration) const {
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start_).count();
    const double tasks = static_cast<double>(state.iterations()) * tasks_per_iteration;
    state.SetItemsProcessed(static_cast<std::int64_t>(tasks));
    state.counters["ns_per_task"] = ns / tasks;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// ---------------------------------------------------------------------------------------
// tessera

struct TesseraFixture {
  explicit TesseraFixture(int threads) : runtime(tessera::RuntimeOptions{.threads = threads}) {
    for (int i = 0; i < kBatch * kMaxAccesses; ++i) {
      handles.push_back(runtime.create_handle(fmt::format("h{}", i)));
    }
  }
  tessera::Runtime runtime;
  std::vector<tessera::Handle> handles;
};

void tessera_access(benchmark::State& state) {
  const int accesses = static_cast<int>(state.range(0));
  const int batch = static_cast<int>(state.range(2));
  TesseraFixture f(static_cast<int>(state.range(1)));
  std::array<tessera::Access, kMaxAccesses> list{};
  const LoopClock clock;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i) {
      const tessera::Handle* mine = &f.handles[static_cast<std::size_t>(i) * kMaxAccesses];
      for (int j = 0; j < accesses; ++j) {
        list[j] = j == 0 ? tessera::write(mine[j]) : tessera::read(mine[j]);
      }
      f.runtime.submit("empty", std::span<const tessera::Access>(list.data(), accesses),
                       [] { empty_body(); });
    }
    f.runtime.wait_all();
  }
  clock.set_task_counters(state, batch);
}

void tessera_access_batch(benchmark::State& state) {
  const int accesses = static_cast<int>(state.range(0));
  TesseraFixture f(static_cast<int>(state.range(1)));
  std::array<tessera::Access, kMaxAccesses> list{};
  const LoopClock clock;
  for (auto _ : state) {
    f.runtime.submit_batch(
        "empty", kBatch,
        [&](std::size_t i) {
          const tessera::Handle* mine = &f.handles[i * kMaxAccesses];
          for (int j = 0; j < accesses; ++j) {
            list[j] = j == 0 ? tessera::write(mine[j]) : tessera::read(mine[j]);
          }
          return std::span<const tessera::Access>(list.data(), accesses);
        },
        [](std::size_t) { empty_body(); });
    f.runtime.wait_all();
  }
  clock.set_task_counters(state, kBatch);
}

void tessera_chain(benchmark::State& state) {
  TesseraFixture f(static_cast<int>(state.range(0)));
  const tessera::Handle h = f.handles[0];
  const LoopClock clock;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      f.runtime.submit("link", {tessera::readwrite(h)}, [] { empty_body(); });
    }
    f.runtime.wait_all();
  }
  clock.set_task_counters(state, kBatch);
}

void tessera_fan(benchmark::State& state) {
  TesseraFixture f(static_cast<int>(state.range(0)));
  const tessera::Handle root = f.handles[0];
  const LoopClock clock;
  for (auto _ : state) {
    f.runtime.submit("root", {tessera::write(root)}, [] { empty_body(); });
    for (int i = 1; i < kBatch - 1; ++i) {
      f.runtime.submit("leaf", {tessera::read(root), tessera::write(f.handles[i])},
                       [] { empty_body(); });
    }
    f.runtime.submit("sink", {tessera::readwrite(root)}, [] { empty_body(); });
    f.runtime.wait_all();
  }
  clock.set_task_counters(state, kBatch);
}

void tessera_stencil(benchmark::State& state) {
  TesseraFixture f(static_cast<int>(state.range(0)));
  const bool replay = state.range(1) != 0;
  tessera::RunStats stats(f.runtime.threads());
  if (state.range(2) != 0) f.runtime.set_observer(&stats);
  // out(slot, x): the output of point x in buffer slot `slot`.
  const auto out = [&](long slot, long x) {
    return f.handles[static_cast<std::size_t>(2 * slot + x)];
  };
  const auto submit_step = [&](long t) {
    for (long x = 0; x < 2; ++x) {
      f.runtime.submit("point",
                       {tessera::read(out((t + 1) % 2, 0)), tessera::read(out((t + 1) % 2, 1)),
                        tessera::write(out(t % 2, x))},
                       [] { empty_body(); });
    }
  };
  constexpr long kSteps = kBatch / 2;
  tessera::IterationGraph graph;
  if (replay) {
    f.runtime.begin_recording();
    submit_step(0);
    submit_step(1);
    graph = f.runtime.end_recording();
  }
  const LoopClock clock;
  for (auto _ : state) {
    if (replay) {
      f.runtime.replay(graph, 0, kSteps / 2);
    } else {
      for (long t = 0; t < kSteps; ++t) submit_step(t);
      f.runtime.wait_all();
    }
  }
  clock.set_task_counters(state, kBatch);
  f.runtime.set_observer(nullptr);
}

// ---------------------------------------------------------------------------------------
// OpenMP tasks with depend clauses. The benchmark loop runs inside `single`; the other
// threads of the team execute tasks from the implicit barrier.

// One byte per "handle": depend clauses only compare addresses.
std::vector<char> omp_data(static_cast<std::size_t>(kBatch) * kMaxAccesses);

template <class Body>
void in_omp_team(int threads, Body body) {
  omp_set_num_threads(threads);
#pragma omp parallel
#pragma omp single
  body();
}

void omp_access(benchmark::State& state) {
  const int accesses = static_cast<int>(state.range(0));
  const int batch = static_cast<int>(state.range(2));
  char* d = omp_data.data();
  in_omp_team(static_cast<int>(state.range(1)), [&] {
    const LoopClock clock;
    for (auto _ : state) {
      for (int i = 0; i < batch; ++i) {
        const std::size_t m = static_cast<std::size_t>(i) * kMaxAccesses;
        switch (accesses) {
          case 0:
#pragma omp task
            empty_body();
            break;
          case 1:
#pragma omp task depend(out : d[m])
            empty_body();
            break;
          case 2:
#pragma omp task depend(out : d[m]) depend(in : d[m + 1])
            empty_body();
            break;
          default:
#pragma omp task depend(out : d[m]) depend(in : d[m + 1], d[m + 2], d[m + 3])
            empty_body();
            break;
        }
      }
#pragma omp taskwait
    }
    clock.set_task_counters(state, batch);
  });
}

void omp_chain(benchmark::State& state) {
  char* h = omp_data.data();
  in_omp_team(static_cast<int>(state.range(0)), [&] {
    const LoopClock clock;
    for (auto _ : state) {
      for (int i = 0; i < kBatch; ++i) {
#pragma omp task depend(inout : h[0])
        empty_body();
      }
#pragma omp taskwait
    }
    clock.set_task_counters(state, kBatch);
  });
}

void omp_fan(benchmark::State& state) {
  char* d = omp_data.data();
  in_omp_team(static_cast<int>(state.range(0)), [&] {
    const LoopClock clock;
    for (auto _ : state) {
#pragma omp task depend(out : d[0])
      empty_body();
      for (int i = 1; i < kBatch - 1; ++i) {
#pragma omp task depend(in : d[0]) depend(out : d[i])
        empty_body();
      }
#pragma omp task depend(inout : d[0])
      empty_body();
#pragma omp taskwait
    }
    clock.set_task_counters(state, kBatch);
  });
}

void omp_stencil(benchmark::State& state) {
  char* d = omp_data.data();
  in_omp_team(static_cast<int>(state.range(0)), [&] {
    const LoopClock clock;
    for (auto _ : state) {
      for (long t = 0; t < kBatch / 2; ++t) {
        // GCC 12 reports variables used only in depend clauses as unused.
        [[maybe_unused]] char* in = d + 2 * ((t + 1) % 2);
        [[maybe_unused]] char* mine = d + 2 * (t % 2);
#pragma omp task depend(in : in[0], in[1]) depend(out : mine[0])
        empty_body();
#pragma omp task depend(in : in[0], in[1]) depend(out : mine[1])
        empty_body();
      }
#pragma omp taskwait
    }
    clock.set_task_counters(state, kBatch);
  });
}

void access_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"accesses", "threads", "batch"});
  for (int threads : {1, 2}) {
    for (int accesses : {0, 1, 2, 4}) b->Args({accesses, threads, kBatch});
    b->Args({2, threads, kSmallBatch});
  }
}

void batch_access_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"accesses", "threads"});
  for (int threads : {1, 2}) {
    for (int accesses : {0, 1, 2, 4}) b->Args({accesses, threads});
  }
}

void stencil_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threads", "replay", "stats"});
  for (int threads : {1, 2}) {
    b->Args({threads, 0, 0});
    b->Args({threads, 1, 0});
    b->Args({threads, 1, 1});
  }
}

void thread_args(benchmark::internal::Benchmark* b) {
  b->ArgName("threads");
  for (int threads : {1, 2}) b->Arg(threads);
}

}  // namespace

BENCHMARK(tessera_access)->Apply(access_args)->UseRealTime();
BENCHMARK(omp_access)->Apply(access_args)->UseRealTime();
BENCHMARK(tessera_access_batch)->Apply(batch_access_args)->UseRealTime();
BENCHMARK(tessera_chain)->Apply(thread_args)->UseRealTime();
BENCHMARK(omp_chain)->Apply(thread_args)->UseRealTime();
BENCHMARK(tessera_fan)->Apply(thread_args)->UseRealTime();
BENCHMARK(omp_fan)->Apply(thread_args)->UseRealTime();
BENCHMARK(tessera_stencil)->Apply(stencil_args)->UseRealTime();
BENCHMARK(omp_stencil)->Apply(thread_args)->UseRealTime();

BENCHMARK_MAIN();
