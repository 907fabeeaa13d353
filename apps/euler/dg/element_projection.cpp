#include "element_projection.hpp"

#include <algorithm>
#include <cstddef>

#include "gauss_legendre.hpp"
#include "tensor_ops.hpp"

namespace euler::dg {

ElementProjection::ElementProjection(const NodalBasis& basis, int dim)
    : n_(basis.size()), m_(basis.size() + 2), dim_(dim), points_(tensor_size(m_, dim)) {
  auto rule = gauss_legendre(m_);
  sample_points_ = std::move(rule.nodes);
  weights_ = std::move(rule.weights);
  operator_.resize(static_cast<std::size_t>(n_ * m_));
  for (int i = 0; i < n_; ++i)
    for (int q = 0; q < m_; ++q)
      operator_[static_cast<std::size_t>(i * m_ + q)] =
          weights_[static_cast<std::size_t>(q)] *
          basis.value(i, sample_points_[static_cast<std::size_t>(q)]) /
          basis.weights()[static_cast<std::size_t>(i)];
}

std::array<double, 3> ElementProjection::point(int q) const {
  std::array<double, 3> x{};
  for (int a = 0; a < dim_; ++a, q /= m_)
    x[static_cast<std::size_t>(a)] = sample_points_[static_cast<std::size_t>(q % m_)];
  return x;
}

void ElementProjection::project(const double* samples, int count, double* nodal) const {
  // Axis by axis, m -> n points: the extents shrink from (m, m, m) to (n, n, n).
  std::vector<double> a(samples, samples + static_cast<std::size_t>(count * points_)), b;
  std::array<int, 3> ext{1, 1, 1};
  for (int d = 0; d < dim_; ++d) ext[static_cast<std::size_t>(d)] = m_;
  for (int d = 0; d < dim_; ++d) {
    int inner = 1, outer = count;
    for (int e = 0; e < d; ++e) inner *= ext[static_cast<std::size_t>(e)];
    for (int e = d + 1; e < dim_; ++e) outer *= ext[static_cast<std::size_t>(e)];
    b.assign(static_cast<std::size_t>(outer * n_ * inner), 0.0);
    for (int o = 0; o < outer; ++o)
      for (int i = 0; i < n_; ++i)
        for (int q = 0; q < m_; ++q) {
          const double c = operator_[static_cast<std::size_t>(i * m_ + q)];
          const double* src = a.data() + (static_cast<std::size_t>(o) * m_ + q) * inner;
          double* dst = b.data() + (static_cast<std::size_t>(o) * n_ + i) * inner;
          for (int k = 0; k < inner; ++k) dst[k] += c * src[k];
        }
    ext[static_cast<std::size_t>(d)] = n_;
    a.swap(b);
  }
  std::copy(a.begin(), a.end(), nodal);
}

}  // namespace euler::dg
