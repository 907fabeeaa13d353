#pragma once
// The 7-point Jacobi update of one row of cells, the inner loop of jacobi_sweep. The
// AVX-512 path and the portable scalar path evaluate the same operations in the same order
// for every cell, and the build never contracts a*b+c into an FMA (-ffp-contract=off), so
// both give the same bits.

#include <cstdint>
#include <type_traits>

#include "output_stores.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tessera::jacobi7 {

struct RowStencil {
  /// How far ahead the vector path prefetches the two streams that come from memory (u's
  /// plane above and f): 4 KB, the best of 2, 4, 8 and 16 KB measured on 128-cell rows.
  /// The hardware prefetchers alone keep too few lines in flight for one core to reach its
  /// bandwidth.
  static constexpr int kPrefetchDoubles = 512;

  double cx, cy, cz, scale;
  /// Whether to prefetch `above` and `rhs` (streams that come from memory). Rows whose
  /// inputs are all in L2 (PlanePipeline's inner levels) run faster without: the
  /// prefetches then only evict L1 lines still to be read.
  bool prefetch = true;

#if defined(__AVX512F__)
  /// Lanes [low[k], ..., low[7], high[0], ..., high[k-1]]: the row's values k places on.
  template <int k>
  static __m512d shift_in(__m512d high, __m512d low, std::integral_constant<int, k>) {
    return _mm512_castsi512_pd(
        // The all-lanes masked form: the unmasked one trips GCC 12's uninitialized warning.
        _mm512_maskz_alignr_epi64(0xFF, _mm512_castpd_si512(high), _mm512_castpd_si512(low), k));
  }
#endif

  /// out[i] = (rhs[i] + cx (left[i] + right[i]) + cy (south[i] + north[i]) +
  /// cz (below[i] + above[i])) * scale for 0 <= i < n, where left[i] is centre[i-1] but
  /// `west` for i = 0, and right[i] is centre[i+1] but `east` for i = n-1 (the values beyond
  /// the row's ends need not be stored next to it). Streaming stores are used only where
  /// `out` is 64-byte aligned (a BlockLayout row of a BlockField block); the caller ends a
  /// sweep that streamed with finish_streaming_stores().
  [[gnu::always_inline]] void apply(int n, const double* __restrict centre, double west,
                                    double east, const double* __restrict south,
                                    const double* __restrict north, const double* __restrict below,
                                    const double* __restrict above, const double* __restrict rhs,
                                    double* __restrict out, OutputStores stores,
                                    double* first_copy = nullptr,
                                    double* last_copy = nullptr) const {
    update<false>(n, centre, west, east, south, north, below, above, rhs, out, stores, first_copy,
                  last_copy);
  }

  /// apply() with cached stores, no column copies and no prefetches (whatever `prefetch`
  /// says), for rows whose inputs are all in cache (PlanePipeline's inner levels): the loop
  /// is compiled without those tests, same operations per cell.
  [[gnu::always_inline]] void apply_in_cache(int n, const double* __restrict centre, double west,
                                             double east, const double* __restrict south,
                                             const double* __restrict north,
                                             const double* __restrict below,
                                             const double* __restrict above,
                                             const double* __restrict rhs,
                                             double* __restrict out) const {
    update<true>(n, centre, west, east, south, north, below, above, rhs, out, OutputStores::cached,
                 nullptr, nullptr);
  }

 private:
  // Inlined into the caller's row loop (always_inline on all three): a call per row cost
  // ~5 ns of the ~13 ns a row pays beyond its vectors (bench_plane_pipeline, 16-cell rows).
  template <bool kInCache>
  [[gnu::always_inline]] void update(int n, const double* __restrict centre, double west,
                                     double east, const double* __restrict south,
                                     const double* __restrict north, const double* __restrict below,
                                     const double* __restrict above, const double* __restrict rhs,
                                     double* __restrict out, OutputStores stores,
                                     double* first_copy_or_null, double* last_copy_or_null) const {
    // Constants when kInCache, so the compiler drops the tests below.
    double* const first_copy = kInCache ? nullptr : first_copy_or_null;
    double* const last_copy = kInCache ? nullptr : last_copy_or_null;
    const bool prefetch_inputs = !kInCache && prefetch;
    int i = 0;
#if defined(__AVX512F__)
    const __m512d vx = _mm512_set1_pd(cx), vy = _mm512_set1_pd(cy), vz = _mm512_set1_pd(cz);
    const __m512d vscale = _mm512_set1_pd(scale);
    const __m512d vwest = _mm512_set1_pd(west), veast = _mm512_set1_pd(east);
    // left and right are built from the aligned vectors of the row itself (valignq), with
    // west and east shifted in at the ends: the row's own x-ghost line, which holds
    // nothing when faces are read in place, is never loaded.
    __m512d previous = vwest;  // only its last lane is used
    // A row starting inside a line (the grown rows of PlanePipeline) first computes the
    // cells up to the next line as one masked vector of that line, so that every later
    // load is aligned (a load across two lines costs two): lane for lane the same
    // operations, west shifted in at the row's first lane.
    const int head =
        static_cast<int>(reinterpret_cast<std::uintptr_t>(centre) / sizeof(double) % 8);
    if (head != 0 && n > 0) {
      const int count = 8 - head < n ? 8 - head : n;
      const bool ends = count == n;
      const __mmask8 m = static_cast<__mmask8>(((1u << count) - 1) << head);
      const __mmask8 first_lane = static_cast<__mmask8>(1u << head);
      const __mmask8 last_lane = static_cast<__mmask8>(1u << (head + count - 1));
      const __m512d line = _mm512_maskz_loadu_pd(m, centre - head);
      const __m512d next = ends ? veast : _mm512_set1_pd(centre[count]);
      const __m512d left = _mm512_mask_mov_pd(
          shift_in(line, vwest, std::integral_constant<int, 7>{}), first_lane, vwest);
      __m512d right = shift_in(next, line, std::integral_constant<int, 1>{});
      if (ends) right = _mm512_mask_mov_pd(right, last_lane, veast);
      const __m512d x = _mm512_add_pd(left, right);
      const __m512d y = _mm512_add_pd(_mm512_maskz_loadu_pd(m, south - head),
                                      _mm512_maskz_loadu_pd(m, north - head));
      const __m512d z = _mm512_add_pd(_mm512_maskz_loadu_pd(m, below - head),
                                      _mm512_maskz_loadu_pd(m, above - head));
      __m512d sum = _mm512_add_pd(_mm512_maskz_loadu_pd(m, rhs - head), _mm512_mul_pd(vx, x));
      sum = _mm512_add_pd(sum, _mm512_mul_pd(vy, y));
      sum = _mm512_add_pd(sum, _mm512_mul_pd(vz, z));
      const __m512d result = _mm512_mul_pd(sum, vscale);
      if (first_copy) _mm512_mask_storeu_pd(first_copy - head, first_lane, result);
      if (ends && last_copy)
        _mm512_mask_storeu_pd(last_copy - (head + count - 1), last_lane, result);
      _mm512_mask_storeu_pd(out - head, m, result);
      previous = line;
      i = count;
    }
    const bool stream = !kInCache && stores == OutputStores::streaming &&
                        reinterpret_cast<std::uintptr_t>(out + i) % sizeof(__m512d) == 0;
    __m512d current = i + 8 <= n ? _mm512_loadu_pd(centre + i) : vwest;
    for (; i + 8 <= n; i += 8) {
      if (prefetch_inputs) {
        _mm_prefetch(reinterpret_cast<const char*>(above + i + kPrefetchDoubles), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(rhs + i + kPrefetchDoubles), _MM_HINT_T0);
      }
      __m512d next = veast;  // only its first lane is used
      if (i + 16 <= n) {
        next = _mm512_loadu_pd(centre + i + 8);
      } else if (i + 8 < n) {
        next = _mm512_set1_pd(centre[i + 8]);
      }
      const __m512d left = shift_in(current, previous, std::integral_constant<int, 7>{});
      const __m512d right = shift_in(next, current, std::integral_constant<int, 1>{});
      previous = current;
      current = next;
      const __m512d x = _mm512_add_pd(left, right);
      const __m512d y = _mm512_add_pd(_mm512_loadu_pd(south + i), _mm512_loadu_pd(north + i));
      const __m512d z = _mm512_add_pd(_mm512_loadu_pd(below + i), _mm512_loadu_pd(above + i));
      __m512d sum = _mm512_add_pd(_mm512_loadu_pd(rhs + i), _mm512_mul_pd(vx, x));
      sum = _mm512_add_pd(sum, _mm512_mul_pd(vy, y));
      sum = _mm512_add_pd(sum, _mm512_mul_pd(vz, z));
      const __m512d result = _mm512_mul_pd(sum, vscale);
      // The copies come from the register: v's line may be on its way past the caches.
      if (i == 0 && first_copy) *first_copy = _mm512_cvtsd_f64(result);
      // Lane 7 only: a masked store writes that one double at last_copy.
      if (i + 8 == n && last_copy) _mm512_mask_storeu_pd(last_copy - 7, 0x80, result);
      if (stream) {
        _mm512_stream_pd(out + i, result);
      } else {
        _mm512_storeu_pd(out + i, result);
      }
    }
    // The last n % 8 cells as one masked vector, lane for lane the operations above (the
    // scalar loop's order): rows of grown extents (PlanePipeline) rarely fill whole vectors.
    if (i < n) {
      const int r = n - i;
      const __mmask8 m = static_cast<__mmask8>((1u << r) - 1);
      const __mmask8 last = static_cast<__mmask8>(1u << (r - 1));
      current = _mm512_maskz_loadu_pd(m, centre + i);
      const __m512d left = shift_in(current, previous, std::integral_constant<int, 7>{});
      const __m512d right = _mm512_mask_mov_pd(
          shift_in(veast, current, std::integral_constant<int, 1>{}), last, veast);
      const __m512d x = _mm512_add_pd(left, right);
      const __m512d y =
          _mm512_add_pd(_mm512_maskz_loadu_pd(m, south + i), _mm512_maskz_loadu_pd(m, north + i));
      const __m512d z =
          _mm512_add_pd(_mm512_maskz_loadu_pd(m, below + i), _mm512_maskz_loadu_pd(m, above + i));
      __m512d sum = _mm512_add_pd(_mm512_maskz_loadu_pd(m, rhs + i), _mm512_mul_pd(vx, x));
      sum = _mm512_add_pd(sum, _mm512_mul_pd(vy, y));
      sum = _mm512_add_pd(sum, _mm512_mul_pd(vz, z));
      const __m512d result = _mm512_mul_pd(sum, vscale);
      if (i == 0 && first_copy) *first_copy = _mm512_cvtsd_f64(result);
      if (last_copy) _mm512_mask_storeu_pd(last_copy - (r - 1), last, result);
      _mm512_mask_storeu_pd(out + i, m, result);
      i = n;
    }
    // A padded row (BlockLayout) is one line longer than its interior; without this the
    // windows above leave one line per row of each stream unprefetched.
    if (prefetch_inputs) {
      _mm_prefetch(reinterpret_cast<const char*>(above + n + kPrefetchDoubles), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(rhs + n + kPrefetchDoubles), _MM_HINT_T0);
    }
#else
    (void)stores;
    (void)prefetch_inputs;
#endif
    for (; i < n; ++i) {
      const double left = i == 0 ? west : centre[i - 1];
      const double right = i == n - 1 ? east : centre[i + 1];
      out[i] =
          (rhs[i] + cx * (left + right) + cy * (south[i] + north[i]) + cz * (below[i] + above[i])) *
          scale;
      if (i == 0 && first_copy) *first_copy = out[i];
      if (i == n - 1 && last_copy) *last_copy = out[i];
    }
  }
};

}  // namespace tessera::jacobi7
