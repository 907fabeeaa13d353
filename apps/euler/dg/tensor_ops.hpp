#pragma once
// One-dimensional operators applied to tensor-product nodal data: n^rank values, index
// i_0 + n (i_1 + n (i_2 ...)), axis 0 fastest; `count` such tensors one after the other (the
// variables of an element, the time nodes of its predictor). An element of dimension dim is
// a tensor of rank dim, one of its faces a tensor of rank dim - 1: the face normal to `axis`
// lists the element's other axes in ascending order.

#include <vector>

namespace euler::dg {

/// n^rank.
inline int tensor_size(int n, int rank) {
  int s = 1;
  for (int r = 0; r < rank; ++r) s *= n;
  return s;
}

/// The transpose of an n x n row-major matrix.
std::vector<double> transposed(const std::vector<double>& m, int n);

/// out = op applied along `axis` of `in` (op: n x n, row-major, out_i = sum_j op_ij in_j on
/// every line along the axis); with `accumulate`, out += that. `op_transposed` is op's
/// transpose (axis 0 multiplies the lines by it from the right). in and out must not
/// overlap. Callable concurrently on distinct out.
void apply_along_axis(const double* op, const double* op_transposed, int n, int rank, int axis,
                      const double* in, double* out, bool accumulate, int count = 1);

/// The face tensor (rank - 1) out_f = sum_j vec_j in[f with i_axis = j]: the trace of the
/// nodal polynomial on a face when vec holds the basis' face values. Overwrites out.
void contract_along_axis(const double* vec, int n, int rank, int axis, const double* in,
                         double* out, int count = 1);

/// out[node] += scale * vec[i_axis(node)] * face[f(node)]: a face tensor spread back onto the
/// element (the lift of a face flux when vec holds face value / weight).
void spread_along_axis(const double* vec, double scale, int n, int rank, int axis,
                       const double* face, double* out, int count = 1);

}  // namespace euler::dg
