#pragma once
// One-dimensional operators applied to tensor-product nodal data: n^rank values, index
// i_0 + n (i_1 + n (i_2 ...)), axis 0 fastest. An element of dimension dim is a tensor of
// rank dim, one of its faces a tensor of rank dim - 1.

namespace euler::dg {

/// n^rank.
inline int tensor_size(int n, int rank) {
  int s = 1;
  for (int r = 0; r < rank; ++r) s *= n;
  return s;
}

/// out = op applied along `axis` of `in` (op: n x n, row-major, out_i = sum_j op_ij in_j on
/// every line along the axis); with `accumulate`, out += that. `op_transposed` is op's
/// transpose (axis 0 multiplies the lines by it from the right). in and out must not
/// overlap. Callable concurrently on distinct out.
void apply_along_axis(const double* op, const double* op_transposed, int n, int rank, int axis,
                      const double* in, double* out, bool accumulate);

}  // namespace euler::dg
