#pragma once
// The small dense product the DG kernels are made of: libxsmm's JIT kernels where the build
// has libxsmm (measured 1.4-3.6x faster than the hand-written kernels on the predictor's
// shapes; the predictor 1.3-1.5x at p = 6 and 9, docs/apps/euler.md), else a loop written so that
// g++ -O3 -march=native vectorizes its inner loop (contiguous rows of B and C) into fused
// multiply-adds (explicit std::fma: the build turns off contraction, -ffp-contract=off, for
// reproducible bits): C (m x n) = or += A (m x k) B (k x n), row-major with leading dimensions.
// Measured against libxsmm in bench/dg-kernels (see docs/apps/euler.md, "High-order DG").

namespace euler::dg {

/// C = A B (accumulate false) or C += A B (accumulate true). A, B, C must not overlap.
/// Callable concurrently on distinct C. A shape always runs the same kernel (a fixed chain
/// of operations), so the bits depend only on the inputs, the shape and the machine's
/// instruction set; libxsmm's kernels and the hand-written ones may differ in the last bit.
void small_gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb, double* c,
                int ldc, bool accumulate);

/// The hand-written path alone (compile-time n = 2..10, else a run-time loop; the same chain
/// of fused multiply-adds l = 0, 1, ... for every entry).
void small_gemm_portable(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                         double* c, int ldc, bool accumulate);

/// True if small_gemm runs libxsmm's kernels (built with libxsmm, not under a sanitizer).
bool small_gemm_uses_libxsmm();

}  // namespace euler::dg
