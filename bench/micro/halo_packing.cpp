// Packing and unpacking one face of a block (pack_region / unpack_region), the work of a
// halo exchange's pack and unpack tasks: how long each face takes per value with the
// block warm in L1/L2, in the last-level cache only (as in a real run whose ranks' fields
// exceed their L2) and in memory (as a simulated rank finds it after the simulator ran
// the other ranks). x faces are strided (one value per row, one cache line per value).
//
//   bench_halo_packing --benchmark_counters_tabular=true
//   (arguments: cells per block edge, face axis 0 = x (strided, one value per row),
//    1 = y, 2 = z, and KB of other data touched before each pack: 0 warm, 4096, 65536)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "tessera/mesh/block_layout.hpp"
#include "tessera/mesh/direction.hpp"

namespace {

using tessera::BlockLayout;
using tessera::Box;
using tessera::Direction;

Direction low_face(int axis) {
  Direction d{};
  d.offset[axis] = -1;
  return d;
}

// Touches `bytes` of other data so that the block's lines leave the caches it does not
// fit beside: 4 MB leaves them in the last-level cache only (this machine: 1 MB L2 per
// core, 32 MB L3), 64 MB leaves them nowhere.
void evict_caches(std::vector<double>& scratch) {
  for (std::size_t i = 0; i < scratch.size(); i += 8) scratch[i] += 1.0;
  benchmark::DoNotOptimize(scratch.data());
  benchmark::ClobberMemory();
}

void run_face(benchmark::State& state, bool pack) {
  const int n = static_cast<int>(state.range(0));
  const int axis = static_cast<int>(state.range(1));
  const std::size_t evict_kb = static_cast<std::size_t>(state.range(2));
  const BlockLayout layout({n, n, n}, {1, 1, 1}, 1);
  std::vector<double> block(layout.size(), 1.0);
  const Direction d = low_face(axis);
  const Box region = pack ? layout.send_region(d) : layout.ghost_region(d);
  std::vector<double> buffer(static_cast<std::size_t>(region.cells()), 2.0);
  std::vector<double> scratch(evict_kb * 1024 / sizeof(double), 0.0);
  for (auto _ : state) {
    // Manual timing: PauseTiming costs more than a warm face takes.
    evict_caches(scratch);
    const auto start = std::chrono::steady_clock::now();
    if (pack) {
      tessera::pack_region(layout, block.data(), region, buffer.data());
    } else {
      tessera::unpack_region(layout, block.data(), region, buffer.data());
    }
    benchmark::DoNotOptimize(block.data());
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // Seconds per value, printed with an SI prefix (n = nanoseconds).
  state.counters["per_value"] = benchmark::Counter(
      static_cast<double>(region.cells()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_PackFace(benchmark::State& state) {
  run_face(state, true);
}
void BM_UnpackFace(benchmark::State& state) {
  run_face(state, false);
}

void face_arguments(benchmark::internal::Benchmark* b) {
  for (int n : {24, 32}) {
    for (int axis = 0; axis < 3; ++axis) {
      for (int evict_kb : {0, 4096, 65536}) b->Args({n, axis, evict_kb});
    }
  }
  b->ArgNames({"cells", "axis", "evict_kb"})->UseManualTime();
}

}  // namespace

// A fixed count: each evicting iteration touches up to 64 MB first, which the manual
// timing leaves out but which would otherwise make the default minimum time take minutes.
BENCHMARK(BM_PackFace)->Apply(face_arguments)->Iterations(400);
BENCHMARK(BM_UnpackFace)->Apply(face_arguments)->Iterations(400);

BENCHMARK_MAIN();
