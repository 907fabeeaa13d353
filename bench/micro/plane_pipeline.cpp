// PlanePipeline with jacobi7's row kernel on one warm block (its u, f and v in L3 as far as
// they fit: 3 x 10 MB for 256 x 64 x 64 at depth 4 does not quite): the compute ceiling of jacobi7
// --time-tile D, in ns per cell update and in "effective" GB/s (24 bytes per update, as jacobi7
// reports). Depth 1 is a plain sweep through the same code. A tile computes its grown cells too, so
// a depth pays only where memory, not this ceiling, limits the plain sweep.
// BM_PlanePipelineFromMemory runs the same on blocks taken in turn from a set of at least
// 128 MB (4x the L3), so that u and f come from memory as in jacobi7's runs.
//
//   bench_plane_pipeline --benchmark_counters_tabular=true
//   (arguments: block cells along x, y and z, depth)
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

// The kernel jacobi7 runs (header-only): the figures are those of the app's tiles.
#include "../../apps/jacobi7/row_stencil.hpp"
#include "tessera/mesh/block_layout.hpp"
#include "jacobi7/plane_pipeline.hpp"

namespace {

using tessera::BlockLayout;
using tessera::Int3;
using tessera::PlanePipeline;
using tessera::PlaneRow;
using tessera::jacobi7::OutputStores;
using tessera::jacobi7::RowStencil;

struct AlignedFree {
  void operator()(double* p) const { std::free(p); }
};

std::unique_ptr<double[], AlignedFree> aligned_block(const BlockLayout& layout, double value) {
  const std::size_t bytes = (layout.size() * sizeof(double) + 63) / 64 * 64;
  std::unique_ptr<double[], AlignedFree> p(static_cast<double*>(std::aligned_alloc(64, bytes)));
  for (std::size_t i = 0; i < layout.size(); ++i) p[i] = value + static_cast<double>(i % 7);
  return p;
}

// `blocks` blocks of u, f and v, run in turn.
void run_pipelines(benchmark::State& state, int blocks) {
  const int n = static_cast<int>(state.range(0));
  const int ny = static_cast<int>(state.range(1));
  const int nz = static_cast<int>(state.range(2));
  const int depth = static_cast<int>(state.range(3));
  const BlockLayout layout({n, ny, nz}, {depth, depth, depth}, 1);
  std::vector<std::unique_ptr<double[], AlignedFree>> us, fs, vs;
  for (int b = 0; b < blocks; ++b) {
    us.push_back(aligned_block(layout, 1.0));
    fs.push_back(aligned_block(layout, 2.0));
    vs.push_back(aligned_block(layout, 0.0));
  }
  std::size_t turn = 0;
  // A block inside the domain: every level grows on every side.
  const PlanePipeline pipeline(layout, depth, {});
  const RowStencil from_memory{0.1, 0.2, 0.3, 0.4, true};
  const RowStencil from_cache{0.1, 0.2, 0.3, 0.4, false};
  std::vector<double> scratch;
  for (auto _ : state) {
    const auto& u = us[turn];
    const auto& f = fs[turn];
    const auto& v = vs[turn];
    turn = (turn + 1) % us.size();
    const double* const fields[] = {f.get()};  // prefetched with u for level 1, as jacobi7 does
    pipeline.run(
        u.get(), v.get(), scratch,
        [&](int level, Int3 first, int count, const PlaneRow& r, double* out) {
          const double* rhs = f.get() + layout.index(0, first.x, first.y, first.z);
          if (level == 1) {
            from_memory.apply(count, r.centre, r.west, r.east, r.south, r.north, r.below, r.above,
                              rhs, out, OutputStores::cached);
          } else {
            from_cache.apply_in_cache(count, r.centre, r.west, r.east, r.south, r.north, r.below,
                                      r.above, rhs, out);
          }
        },
        fields);
    benchmark::DoNotOptimize(v.get());
    benchmark::ClobberMemory();
  }
  const double updates = static_cast<double>(n) * ny * nz * depth;
  state.counters["ns_per_update"] = benchmark::Counter(
      updates * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["effective_GBs"] =
      benchmark::Counter(updates * 24e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PlanePipeline(benchmark::State& state) {
  run_pipelines(state, 1);
}

void BM_PlanePipelineFromMemory(benchmark::State& state) {
  const std::size_t block_bytes = 3 * sizeof(double) * static_cast<std::size_t>(state.range(0)) *
                                  static_cast<std::size_t>(state.range(1)) *
                                  static_cast<std::size_t>(state.range(2));
  run_pipelines(state, static_cast<int>((std::size_t{128} << 20) / block_bytes + 1));
}

// Row length: blocks of 4 x 4 rows that stay in L1, plain sweeps (a row costs a fixed
// overhead plus its vectors); then tiles of the block shapes jacobi7 measures.
BENCHMARK(BM_PlanePipeline)
    ->ArgsProduct({{16, 32, 64, 128, 256}, {4}, {4}, {1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlanePipeline)
    ->ArgsProduct({{64, 128, 256}, {64}, {64}, {1, 3, 4}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlanePipelineFromMemory)
    ->ArgsProduct({{64, 256}, {64}, {64}, {1, 4}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
