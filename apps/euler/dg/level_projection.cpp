#include "level_projection.hpp"

#include <cstddef>

#include "tensor_ops.hpp"

namespace euler::dg {

namespace {

/// out = op_{rank-1} ... op_0 in, with op_a = ops[bit a of child]; the last axis writes or
/// adds to out.
void apply_per_axis(const std::array<std::vector<double>, 2>& ops,
                    const std::array<std::vector<double>, 2>& ops_t, int n, int rank, int child,
                    const double* in, double* out, double* scratch, bool accumulate) {
  if (rank == 0) {
    out[0] = accumulate ? out[0] + in[0] : in[0];
    return;
  }
  const int size = tensor_size(n, rank);
  const double* src = in;
  for (int a = 0; a < rank; ++a) {
    const int half = (child >> a) & 1;
    const bool last = a == rank - 1;
    double* dst = last ? out : scratch + (a % 2) * size;
    apply_along_axis(ops[static_cast<std::size_t>(half)].data(),
                     ops_t[static_cast<std::size_t>(half)].data(), n, rank, a, src, dst,
                     last && accumulate);
    src = dst;
  }
}

}  // namespace

LevelProjection level_projection(const NodalBasis& basis) {
  LevelProjection p;
  const int n = basis.size();
  p.n = n;
  const auto& x = basis.points();
  const auto& w = basis.weights();
  for (int c = 0; c < 2; ++c) {
    std::vector<double> half(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      half[static_cast<std::size_t>(i)] = 0.5 * (c + x[static_cast<std::size_t>(i)]);
    auto down = basis.interpolation(half);  // [i * n + j] = L_j(half_i)
    std::vector<double> up(down.size());
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        up[static_cast<std::size_t>(i * n + j)] = w[static_cast<std::size_t>(j)] *
                                                  down[static_cast<std::size_t>(j * n + i)] /
                                                  (2 * w[static_cast<std::size_t>(i)]);
    const auto uc = static_cast<std::size_t>(c);
    p.to_child_t[uc] = transposed(down, n);
    p.to_child[uc] = std::move(down);
    p.to_parent_t[uc] = transposed(up, n);
    p.to_parent[uc] = std::move(up);
  }
  return p;
}

void project_to_child(const LevelProjection& proj, int rank, int child, const double* parent,
                      double* out, double* scratch) {
  apply_per_axis(proj.to_child, proj.to_child_t, proj.n, rank, child, parent, out, scratch, false);
}

void add_child_to_parent(const LevelProjection& proj, int rank, int child, const double* in,
                         double* parent, double* scratch) {
  apply_per_axis(proj.to_parent, proj.to_parent_t, proj.n, rank, child, in, parent, scratch, true);
}

}  // namespace euler::dg
