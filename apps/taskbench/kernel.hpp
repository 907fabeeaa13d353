#pragma once
// Task Bench's task kernels and their FLOP / byte accounting (the numbers behind
// "Total FLOPs" and "Total Bytes"). compute_bound does the same work as Task Bench's AVX2
// build (16 vectors of 4 doubles, one fused multiply-add each per iteration) when the CPU
// has AVX2 and FMA, chosen at run time, so FLOP/s are comparable with Task Bench's.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "random_uniform.hpp"

namespace tessera::taskbench {

enum class KernelType {
  empty,
  busy_wait,
  memory_bound,
  compute_bound,
  compute_bound2,
  load_imbalance
};

inline constexpr std::array<std::pair<KernelType, std::string_view>, 6> kKernelNames = {{
    {KernelType::empty, "empty"},
    {KernelType::busy_wait, "busy_wait"},
    {KernelType::memory_bound, "memory_bound"},
    {KernelType::compute_bound, "compute_bound"},
    {KernelType::compute_bound2, "compute_bound2"},
    {KernelType::load_imbalance, "load_imbalance"},
}};

/// Task Bench kernels this app does not provide (they need BLAS or abort in Task Bench).
inline constexpr std::array<std::string_view, 3> kUnsupportedKernels = {"compute_dgemm",
                                                                        "memory_daxpy", "io_bound"};

inline std::string_view to_string(KernelType type) {
  for (const auto& [t, name] : kKernelNames) {
    if (t == type) return name;
  }
  return "?";
}

inline std::optional<KernelType> parse_kernel_type(std::string_view name) {
  for (const auto& [t, n] : kKernelNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

/// A task's kernel: what it runs and how long.
struct KernelConfig {
  KernelType type = KernelType::empty;
  long iterations = 0;
  long samples = 16;     ///< memory_bound: the scratch is walked in this many pieces
  double imbalance = 0;  ///< load_imbalance: iterations vary by up to +-imbalance/2
};

/// The value scratch buffers are filled with; tasks check their first word.
inline constexpr std::uint64_t kScratchMagic = 0x5C4A7C8B;

/// load_imbalance: round((1 + (u - 1/2) * imbalance) * iterations), u uniform in [0, 1)
/// drawn from (graph, timestep, point) as Task Bench does.
inline long imbalance_iterations(const KernelConfig& k, long graph_index, long t, long point) {
  const std::array<std::int64_t, 3> seed = {graph_index, t, point};
  const double u = random_uniform(seed);
  return std::lround((1 + (u - 0.5) * k.imbalance) * static_cast<double>(k.iterations));
}

/// FLOPs Task Bench counts for one task.
inline long long flops_per_task(const KernelConfig& k, long graph_index, long t, long point) {
  switch (k.type) {
    case KernelType::compute_bound:
      return 2LL * 64 * k.iterations + 64;
    case KernelType::compute_bound2:
      return 2LL * 32 * k.iterations;
    case KernelType::load_imbalance:
      return 2LL * 64 * imbalance_iterations(k, graph_index, t, point) + 64;
    default:
      return 0;
  }
}

/// Bytes Task Bench counts for one task.
inline long long bytes_per_task(const KernelConfig& k, long scratch_bytes) {
  if (k.type != KernelType::memory_bound) return 0;
  return static_cast<long long>(scratch_bytes) * k.iterations / k.samples;
}

namespace detail {

/// Keeps `value` (and the work that produced it) from being optimized away.
template <class T>
inline void keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

inline long long busy_wait(long iterations) {
  long long acc = 113;
  for (long i = 0; i < iterations; ++i) acc = acc * 139 % 2147483647;
  return acc;
}

inline double compute_bound_scalar(long iterations) {
  double a[64];
  for (double& v : a) v = 1.2345;
  for (long it = 0; it < iterations; ++it) {
    for (double& v : a) v = v * v + v;
  }
  double product = 1.0;
  for (double v : a) product *= v;
  return product;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) inline double compute_bound_avx2(long iterations) {
  __m256d a[16];
  for (__m256d& v : a) v = _mm256_set_pd(1.0, 2.0, 3.0, 4.0);
  for (long it = 0; it < iterations; ++it) {
    for (__m256d& v : a) v = _mm256_fmadd_pd(v, v, v);
  }
  // Lane by lane in memory order, like Task Bench; read in place (a copy of the 512
  // bytes first cost a `rep movsq` per task).
  double product = 1.0;
  for (const __m256d& v : a) {
    for (int k = 0; k < 4; ++k) product *= v[k];
  }
  return product;
}

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

inline double compute_bound(long iterations) {
#if defined(__x86_64__)
  if (cpu_has_avx2_fma()) return compute_bound_avx2(iterations);
#endif
  return compute_bound_scalar(iterations);
}

inline double compute_bound2(long iterations) {
  constexpr int kN = 32;
  double a[kN], b[kN], c[kN];
  for (int i = 0; i < kN; ++i) {
    a[i] = 1.2345;
    b[i] = 1.010101;
    c[i] = 0;
  }
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kN; ++i) c[i] += a[i] * b[i];
  }
  double sum = 0;
  for (double v : c) sum += v;
  return sum;
}

/// Copies the first half of [p, p + bytes) onto its second half.
inline void copy_half(std::byte* p, std::size_t bytes) {
  std::memcpy(p + bytes / 2, p, bytes / 2);
}

/// Walks the scratch's `samples` pieces cyclically, `iterations` pieces in all, starting
/// at piece (t * iterations) mod samples, copying each contiguous run at once.
inline void memory_bound(const KernelConfig& k, std::span<std::byte> scratch, long t) {
  const auto sample_bytes = static_cast<std::size_t>(scratch.size() / k.samples);
  const long n = k.iterations;
  long done = 0;
  auto start_of = [&](long iter) { return (t * n + iter) % k.samples; };
  auto copy_run = [&](long start, long count) {
    copy_half(scratch.data() + start * sample_bytes,
              static_cast<std::size_t>(count) * sample_bytes);
  };
  // Up to the end of the scratch, then whole passes, then the rest.
  const long first = start_of(0);
  const long head = std::min(k.samples, first + n) - first;
  if (head > 0) {
    copy_run(first, head);
    done += head;
  }
  for (; done + k.samples <= n; done += k.samples) copy_run(start_of(done), k.samples);
  if (n - done > 0) {
    copy_run(start_of(done), n - done);
    done = n;
  }
}

}  // namespace detail

/// Runs kernel `k` for task (t, point) of graph `graph_index` on the task's scratch.
inline void run_kernel(const KernelConfig& k, long graph_index, long t, long point,
                       std::span<std::byte> scratch) {
  switch (k.type) {
    case KernelType::empty:
      break;
    case KernelType::busy_wait:
      detail::keep(detail::busy_wait(k.iterations));
      break;
    case KernelType::memory_bound:
      detail::memory_bound(k, scratch, t);
      break;
    case KernelType::compute_bound:
      detail::keep(detail::compute_bound(k.iterations));
      break;
    case KernelType::compute_bound2:
      detail::keep(detail::compute_bound2(k.iterations));
      break;
    case KernelType::load_imbalance:
      detail::keep(detail::compute_bound(imbalance_iterations(k, graph_index, t, point)));
      break;
  }
}

}  // namespace tessera::taskbench
