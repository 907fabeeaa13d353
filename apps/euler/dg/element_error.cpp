#include "element_error.hpp"

#include <cmath>
#include <cstddef>

#include "gauss_legendre.hpp"
#include "tensor_ops.hpp"

namespace euler::dg {

ElementError::ElementError(const NodalBasis& basis, int dim)
    : n_(basis.size()), m_(basis.size() + 2), dim_(dim) {
  auto rule = gauss_legendre(m_);
  points_ = std::move(rule.nodes);
  weights_ = std::move(rule.weights);
  interpolation_ = basis.interpolation(points_);
}

std::array<double, 2> ElementError::integrate(
    const double* rho, const std::array<double, 3>& corner, const std::array<double, 3>& dx,
    const std::function<double(const std::array<double, 3>&)>& exact) const {
  double volume = 1;
  for (int a = 0; a < dim_; ++a) volume *= dx[static_cast<std::size_t>(a)];
  const int nodes = tensor_size(n_, dim_), points = tensor_size(m_, dim_);
  double l1 = 0, l2 = 0;
  for (int q = 0; q < points; ++q) {
    std::array<int, 3> qi{};
    std::array<double, 3> x = corner;
    double w = volume;
    for (int a = 0, r = q; a < dim_; ++a, r /= m_) {
      const auto ua = static_cast<std::size_t>(a);
      qi[ua] = r % m_;
      w *= weights_[static_cast<std::size_t>(qi[ua])];
      x[ua] += points_[static_cast<std::size_t>(qi[ua])] * dx[ua];
    }
    double value = 0;
    for (int node = 0; node < nodes; ++node) {
      double b = 1;
      for (int a = 0, r = node; a < dim_; ++a, r /= n_)
        b *=
            interpolation_[static_cast<std::size_t>(qi[static_cast<std::size_t>(a)] * n_ + r % n_)];
      value += b * rho[node];
    }
    const double e = value - exact(x);
    l1 += w * std::abs(e);
    l2 += w * e * e;
  }
  return {l1, l2};
}

}  // namespace euler::dg
