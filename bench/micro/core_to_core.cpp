// Round trip of one cache line between two threads on different CPUs: the latency every
// hand-off between threads (a ready task, a shared-memory MPI message) pays at least once.
//
// The benchmark thread and a partner thread, pinned to CPUs 0 and 1 when the machine has
// two, take turns writing a counter on one cache line and waiting for the other's write:
// one benchmark iteration is kRoundTrips round trips. On this project's virtual machines
// the result is bimodal (about 100 ns, or about 500 ns when the host places the two
// virtual CPUs far apart), which is why bench/metg prints it before and after its sweep.
// Counter: ns_per_round_trip.

#include <benchmark/benchmark.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace {

constexpr std::int64_t kRoundTrips = 10000;

// Pins the calling thread to `cpu` when it exists; unpinned otherwise (one CPU).
void pin_to(int cpu) {
  if (cpu >= static_cast<int>(std::thread::hardware_concurrency())) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

void round_trip(benchmark::State& state) {
  alignas(64) std::atomic<std::int64_t> ball{0};
  std::atomic<bool> stop{false};
  pin_to(0);
  // The partner answers every odd value with the next even one until told to stop.
  std::thread partner([&] {
    pin_to(1);
    std::int64_t seen = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const std::int64_t v = ball.load(std::memory_order_acquire);
      if (v != seen && (v & 1) == 1) {
        seen = v + 1;
        ball.store(seen, std::memory_order_release);
      }
    }
  });
  std::int64_t value = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kRoundTrips; ++i) {
      ball.store(++value, std::memory_order_release);
      ++value;
      while (ball.load(std::memory_order_acquire) != value) {
      }
    }
  }
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  stop.store(true, std::memory_order_relaxed);
  partner.join();
  state.counters["ns_per_round_trip"] =
      elapsed.count() / (static_cast<double>(state.iterations()) * kRoundTrips);
}
BENCHMARK(round_trip)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
