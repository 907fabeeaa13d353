// The ADER-DG kernels of one element in a loop (euler --scheme dg): predictor and corrector,
// p = 3..9, 3-D, GFLOP/s by the flop model (apps/euler/dg/ader_element.hpp, documented in
// docs/apps/euler.md) against this core's measured peak: a loop of independent fused
// multiply-adds on full-width vectors. One thread; run by bench/dg-kernels.
//
//   bench_dg_kernels [--seconds S] [--orders P ...] [--dim D]
#include <immintrin.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "euler/dg/ader_element.hpp"
#include "euler/dg/element_projection.hpp"
#include "euler/dg/small_gemm.hpp"
#include "euler/dg/smooth_problems.hpp"
#include "euler/dg/tensor_ops.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace euler::dg;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Peak GFLOP/s of one core: 16 independent chains of vector FMAs (enough to cover the FMA
/// latency on two pipes), 2 flops per lane per FMA.
double fma_peak(double seconds) {
#if defined(__AVX512F__)
  using V = __m512d;
  constexpr int kLanes = 8;
  auto fma = [](V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); };
  auto set = [](double x) { return _mm512_set1_pd(x); };
  auto sum = [](V v) {
    alignas(64) double d[8];
    _mm512_store_pd(d, v);
    return d[0] + d[1] + d[2] + d[3] + d[4] + d[5] + d[6] + d[7];
  };
#else
  using V = __m256d;
  constexpr int kLanes = 4;
  auto fma = [](V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); };
  auto set = [](double x) { return _mm256_set1_pd(x); };
  auto sum = [](V v) {
    alignas(32) double d[4];
    _mm256_store_pd(d, v);
    return d[0] + d[1] + d[2] + d[3];
  };
#endif
  constexpr int kChains = 16;
  V acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = set(1.0 + 1e-3 * c);
  const V a = set(0.999999), b = set(1e-7);
  long iterations = 0;
  const auto t0 = Clock::now();
  double elapsed = 0;
  do {
    for (int r = 0; r < 1000; ++r)
      for (int c = 0; c < kChains; ++c) acc[c] = fma(acc[c], a, b);
    iterations += 1000;
    elapsed = seconds_since(t0);
  } while (elapsed < seconds);
  double s = 0;
  for (int c = 0; c < kChains; ++c) s += sum(acc[c]);
  if (s == 42) std::puts("");  // keeps the chains alive
  return 2.0 * kLanes * kChains * static_cast<double>(iterations) / elapsed * 1e-9;
}

struct Rate {
  double gflops = 0, seconds_per_call = 0;
  int iterations = 0;
};

}  // namespace

int main(int argc, char** argv) {
  double seconds = 1;
  int dim = 3;
  std::vector<int> orders{3, 4, 5, 6, 7, 8, 9};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--dim") && i + 1 < argc) {
      dim = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--orders")) {
      orders.clear();
      while (i + 1 < argc && argv[i + 1][0] != '-') orders.push_back(std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: bench_dg_kernels [--seconds S] [--dim 2|3] [--orders P ...]\n");
      return 2;
    }
  }
  const double peak = fma_peak(seconds);
  std::printf("fma peak: %.2f GFLOP/s (one core); small products: %s\n", peak,
              small_gemm_uses_libxsmm() ? "libxsmm" : "hand-written kernel");
  std::printf("%5s %5s %10s %12s %9s %12s %9s\n", "order", "picard", "pred us", "pred GFLOP/s",
              "pred/pk", "corr GFLOP/s", "corr/pk");
  for (const int p : orders) {
    const AderOperators ops(p);
    AderWorkspace ws(p, dim);
    const int n = p + 1, nodes = tensor_size(n, dim);
    const std::size_t block = kNodeVars * static_cast<std::size_t>(nodes);
    // One element of the smooth-blobs problem, 1/27 of the domain wide (the benchmark's mesh).
    const std::array<double, 3> dx{1.0 / 27, 1.0 / 27, 1.0 / 27};
    const ElementProjection projection(ops.basis, dim);
    std::vector<double> samples(kNodeVars * static_cast<std::size_t>(projection.points()));
    for (int q = 0; q < projection.points(); ++q) {
      auto x = projection.point(q);
      for (auto& c : x) c = 0.3 + c / 27;
      const State s = exact_state(SmoothProblem::smooth_blobs, 3, x, 0);
      for (std::size_t v = 0; v < kNodeVars; ++v)
        samples[v * static_cast<std::size_t>(projection.points()) + static_cast<std::size_t>(q)] =
            s[v];
    }
    std::vector<double> u(block), work(block), q_avg(block), flux_avg(block * dim),
        traces(2 * static_cast<std::size_t>(dim * face_trace_size(n, dim))),
        face(static_cast<std::size_t>(face_trace_size(n, dim) / 2));
    projection.project(samples.data(), kNodeVars, u.data());
    const double dt = stable_dt(p, dim, u.data(), dx, kSmoothGamma, 0.3);
    // Predictor.
    Rate pred;
    long calls = 0;
    auto t0 = Clock::now();
    double elapsed = 0;
    do {
      const Prediction r =
          predict(ops, dim, u.data(), dt, dx, kSmoothGamma, ws, q_avg.data(), flux_avg.data());
      pred.iterations = r.iterations;
      ++calls;
      elapsed = seconds_since(t0);
    } while (elapsed < seconds);
    pred.seconds_per_call = elapsed / static_cast<double>(calls);
    pred.gflops = static_cast<double>(predictor_flops(p, dim, pred.iterations)) /
                  pred.seconds_per_call * 1e-9;
    // Corrector: the element's traces, volume term, and its share of the faces (the fluxes of
    // its upper faces, lifted onto both sides; here the element is its own neighbour).
    const std::size_t trace = static_cast<std::size_t>(face_trace_size(n, dim));
    calls = 0;
    t0 = Clock::now();
    do {
      std::copy(u.begin(), u.end(), work.begin());
      face_traces(ops, dim, q_avg.data(), flux_avg.data(), traces.data());
      add_volume_term(ops, dim, flux_avg.data(), dt, dx, work.data());
      for (int a = 0; a < dim; ++a) {
        face_flux(n, dim, a, traces.data() + (2 * a + 1) * trace, traces.data() + 2 * a * trace,
                  kSmoothGamma, FaceFlux::rusanov, face.data());
        add_face_term(ops, dim, a, 1, face.data(), dt / dx[static_cast<std::size_t>(a)],
                      work.data());
        add_face_term(ops, dim, a, 0, face.data(), dt / dx[static_cast<std::size_t>(a)],
                      work.data());
      }
      ++calls;
      elapsed = seconds_since(t0);
    } while (elapsed < seconds);
    const double corr_gflops = static_cast<double>(corrector_flops(p, dim)) /
                               (elapsed / static_cast<double>(calls)) * 1e-9;
    std::printf("%5d %5d %10.1f %12.2f %8.1f%% %12.2f %8.1f%%\n", p, pred.iterations,
                pred.seconds_per_call * 1e6, pred.gflops, 100 * pred.gflops / peak, corr_gflops,
                100 * corr_gflops / peak);
    std::fflush(stdout);
  }
  return 0;
}
