#pragma once
// The small dense product the DG kernels are made of, written so that g++ -O3 -march=native
// vectorizes its inner loop (contiguous rows of B and C) into fused multiply-adds (explicit
// std::fma: the build turns off contraction, -ffp-contract=off, for reproducible bits): C (m x n) =
// or += A (m x k) B (k x n), row-major with leading dimensions. Measured against libxsmm in
// bench/dg-kernels (see docs/apps/euler.md, "DG kernels").

#include <cmath>

namespace euler::dg {

/// C = A B (accumulate false) or C += A B (accumulate true). A, B, C must not overlap.
/// Callable concurrently on distinct C.
inline void small_gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                       double* c, int ldc, bool accumulate) {
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
