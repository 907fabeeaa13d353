#include "tensor_ops.hpp"

#include <cmath>
#include <cstddef>

#include "small_gemm.hpp"

namespace euler::dg {

std::vector<double> transposed(const std::vector<double>& m, int n) {
  std::vector<double> t(m.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      t[static_cast<std::size_t>(j * n + i)] = m[static_cast<std::size_t>(i * n + j)];
  return t;
}

void apply_along_axis(const double* op, const double* op_transposed, int n, int rank, int axis,
                      const double* in, double* out, bool accumulate, int count) {
  const int inner = tensor_size(n, axis);
  const int outer = tensor_size(n, rank - 1 - axis) * count;
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

void contract_along_axis(const double* vec, int n, int rank, int axis, const double* in,
                         double* out, int count) {
  const int inner = tensor_size(n, axis);
  const int outer = tensor_size(n, rank - 1 - axis) * count;
  if (axis == 0) {
    for (int o = 0; o < outer; ++o) {
      double s = 0;
      for (int j = 0; j < n; ++j) s = std::fma(vec[j], in[static_cast<long>(o) * n + j], s);
      out[o] = s;
    }
    return;
  }
  const long slab = static_cast<long>(n) * inner;
  for (int o = 0; o < outer; ++o)
    small_gemm(1, inner, n, vec, n, in + o * slab, inner, out + static_cast<long>(o) * inner, inner,
               false);
}

void spread_along_axis(const double* vec, double scale, int n, int rank, int axis,
                       const double* face, double* out, int count) {
  const int inner = tensor_size(n, axis);
  const int outer = tensor_size(n, rank - 1 - axis) * count;
  for (int o = 0; o < outer; ++o)
    for (int j = 0; j < n; ++j) {
      const double c = scale * vec[j];
      double* __restrict line = out + (static_cast<long>(o) * n + j) * inner;
      const double* __restrict f = face + static_cast<long>(o) * inner;
      for (int i = 0; i < inner; ++i) line[i] = std::fma(c, f[i], line[i]);
    }
}

}  // namespace euler::dg
