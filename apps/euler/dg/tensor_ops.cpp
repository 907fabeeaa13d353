#include "tensor_ops.hpp"

#include "small_gemm.hpp"

namespace euler::dg {

void apply_along_axis(const double* op, const double* op_transposed, int n, int rank, int axis,
                      const double* in, double* out, bool accumulate) {
  const int inner = tensor_size(n, axis);
  const int outer = tensor_size(n, rank - 1 - axis);
  if (axis == 0) {
    // The lines are the rows: out (outer x n) = in (outer x n) op^T.
    small_gemm(outer, n, n, in, n, op_transposed, n, out, n, accumulate);
    return;
  }
  // Each outer slab is an (n x inner) matrix: out_slab = op in_slab.
  const long slab = static_cast<long>(n) * inner;
  for (int o = 0; o < outer; ++o)
    small_gemm(n, inner, n, op, n, in + o * slab, inner, out + o * slab, inner, accumulate);
}

}  // namespace euler::dg
