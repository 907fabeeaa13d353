#include "small_gemm.hpp"

#include <cmath>

#ifdef TESSERA_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

namespace euler::dg {

namespace {

/// The product with n fixed at compile time: the inner loop is unrolled into (masked)
/// full-width vectors, which the run-time loop is not for n < 16.
template <int N>
void fixed_n(int m, int k, const double* a, int lda, const double* b, int ldb, double* c, int ldc,
             bool accumulate) {
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

}  // namespace

void small_gemm_portable(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                         double* c, int ldc, bool accumulate) {
  switch (n) {
    case 2:
      return fixed_n<2>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 3:
      return fixed_n<3>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 4:
      return fixed_n<4>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 5:
      return fixed_n<5>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 6:
      return fixed_n<6>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 7:
      return fixed_n<7>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 8:
      return fixed_n<8>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 9:
      return fixed_n<9>(m, k, a, lda, b, ldb, c, ldc, accumulate);
    case 10:
      return fixed_n<10>(m, k, a, lda, b, ldb, c, ldc, accumulate);
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

bool small_gemm_uses_libxsmm() {
#ifdef TESSERA_HAVE_LIBXSMM
  return true;
#else
  return false;
#endif
}

void small_gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb, double* c,
                int ldc, bool accumulate) {
#ifdef TESSERA_HAVE_LIBXSMM
  // libxsmm is column-major: the row-major C = A B is the column-major C^T = B^T A^T.
  // dispatch finds the kernel in libxsmm's registry (JIT-generated on first use;
  // thread-safe).
  const libxsmm_blasint mm = n, nn = m, kk = k, la = ldb, lb = lda, lc = ldc;
  const double alpha = 1, beta = accumulate ? 1 : 0;
  const int flags = LIBXSMM_GEMM_FLAG_NONE, prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  if (const libxsmm_dmmfunction kernel =
          libxsmm_dmmdispatch(mm, nn, kk, &la, &lb, &lc, &alpha, &beta, &flags, &prefetch)) {
    kernel(b, a, c);
    return;
  }
#endif
  small_gemm_portable(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

}  // namespace euler::dg
