// STREAM triad (a[i] = b[i] + s * c[i]) on arrays far larger than the last-level cache:
// this machine's sustainable memory bandwidth, the yardstick for memory-bound stencils.
// Bandwidth is counted as STREAM counts it: 24 bytes per element (read b and c, write a).
// BM_StreamTriad allocates as STREAM does (small pages unless the kernel backs every
// allocation with huge pages); BM_StreamTriadHugePages asks for transparent huge pages, as
// tessera's BlockField does for large fields, so a stencil on huge pages has a yardstick
// on the same pages.
//
//   bench_stream_triad --benchmark_counters_tabular=true
//   (argument: OpenMP threads; env TESSERA_TRIAD_MB sets the size of each array in MB)
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

#include <sys/mman.h>

namespace {

std::size_t array_elements() {
  const char* mb = std::getenv("TESSERA_TRIAD_MB");
  const std::size_t megabytes = mb ? std::stoul(mb) : 256;
  return megabytes * (std::size_t{1} << 20) / sizeof(double);
}

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double[], FreeDeleter>;

enum class Pages { small, huge };

Array allocate(std::size_t n, Pages pages) {
  constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
  const std::size_t alignment = pages == Pages::huge ? kHugePageBytes : 64;
  const std::size_t bytes = (n * sizeof(double) + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, bytes);
  if (pages == Pages::huge) madvise(memory, bytes, MADV_HUGEPAGE);
  return Array(static_cast<double*>(memory));
}

void stream_triad(benchmark::State& state, Pages pages) {
  const int threads = static_cast<int>(state.range(0));
  const std::size_t n = array_elements();
  Array a = allocate(n, pages), b = allocate(n, pages), c = allocate(n, pages);
  double* __restrict pa = a.get();
  const double* __restrict pb = b.get();
  const double* __restrict pc = c.get();
  // First touch by the threads that use the data, as STREAM does.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  const double scalar = 3.0;
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] + scalar * pc[i];
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(pa[n / 2]);
  state.counters["threads"] = threads;
  state.counters["bytes_per_second"] = benchmark::Counter(
      24.0 * static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_StreamTriad(benchmark::State& state) {
  stream_triad(state, Pages::small);
}

void BM_StreamTriadHugePages(benchmark::State& state) {
  stream_triad(state, Pages::huge);
}

BENCHMARK(BM_StreamTriad)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamTriadHugePages)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
