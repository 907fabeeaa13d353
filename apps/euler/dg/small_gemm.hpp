#pragma once
// The small dense product the DG kernels are made of, written so that g++ -O3 -march=native
// vectorizes its inner loop (contiguous rows of B and C) into fused multiply-adds (explicit
// std::fma: the build turns off contraction, -ffp-contract=off, for reproducible bits): C (m x n) =
// or += A (m x k) B (k x n), row-major with leading dimensions. Measured against libxsmm in
// bench/dg-kernels (see docs/apps/euler.md, "DG kernels").

#include <cmath>

namespace euler::dg {

/// The product with n fixed at compile time: the inner loop is unrolled into (masked)
/// full-width vectors, which the run-time loop is not for n < 16.
template <int N>
void small_gemm_fixed(int m, int k, const double* a, int lda, const double* b, int ldb, double* c,
                      int ldc, bool accumulate) {
  for (int i = 0; i < m; ++i) {
    double* __restrict ci = c + static_cast<long>(i) * ldc;
    double acc[N];
    for (int j = 0; j < N; ++j) acc[j] = accumulate ? ci[j] : 0.0;
    for (int l = 0; l < k; ++l) {
      const double ail = a[static_cast<long>(i) * lda + l];
      const double* __restrict bl = b + static_cast<long>(l) * ldb;
      for (int j = 0; j < N; ++j) acc[j] = std::fma(ail, bl[j], acc[j]);
    }
    for (int j = 0; j < N; ++j) ci[j] = acc[j];
  }
}

/// C = A B (accumulate false) or C += A B (accumulate true). A, B, C must not overlap.
/// Callable concurrently on distinct C. Every C_ij is the same chain of fused multiply-adds
/// (l = 0, 1, ...) whichever path computes it, so the bits do not depend on n's path.
inline void small_gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                       double* c, int ldc, bool accumulate) {
  switch (n) {
    case 2:
      return small_gemm_fixed<2>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 3:
      return small_gemm_fixed<3>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 4:
      return small_gemm_fixed<4>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 5:
      return small_gemm_fixed<5>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 6:
      return small_gemm_fixed<6>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 7:
      return small_gemm_fixed<7>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 8:
      return small_gemm_fixed<8>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 9:
      return small_gemm_fixed<9>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 10:
      return small_gemm_fixed<10>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    default:
      break;
  }
  for (int i = 0; i < m; ++i) {
    double* __restrict ci = c + static_cast<long>(i) * ldc;
    if (!accumulate)
      for (int j = 0; j < n; ++j) ci[j] = 0;
    for (int l = 0; l < k; ++l) {
      const double ail = a[static_cast<long>(i) * lda + l];
      const double* __restrict bl = b + static_cast<long>(l) * ldb;
      for (int j = 0; j < n; ++j) ci[j] = std::fma(ail, bl[j], ci[j]);
    }
  }
}

}  // namespace euler::dg
