#include "nodal_basis.hpp"

#include <stdexcept>
#include <string>

#include "gauss_legendre.hpp"

namespace euler::dg {

NodalBasis::NodalBasis(int order) : order_(order) {
  if (order < 0 || order > 31)
    throw std::invalid_argument("NodalBasis: order must be in 0..31, got " + std::to_string(order));
  const int n = order + 1;
  auto rule = gauss_legendre(n);
  points_ = std::move(rule.nodes);
  weights_ = std::move(rule.weights);
  const auto un = static_cast<std::size_t>(n);
  // Barycentric weights b_j = 1 / prod_{m != j} (x_j - x_m).
  barycentric_.assign(un, 1.0);
  for (std::size_t j = 0; j < un; ++j) {
    double prod = 1;
    for (std::size_t m = 0; m < un; ++m)
      if (m != j) prod *= points_[j] - points_[m];
    barycentric_[j] = 1 / prod;
  }
  // D_ij = (b_j / b_i) / (x_i - x_j) off the diagonal; each row sums to zero (p' of a
  // constant), which fixes the diagonal.
  derivative_.assign(un * un, 0.0);
  for (std::size_t i = 0; i < un; ++i) {
    double diagonal = 0;
    for (std::size_t j = 0; j < un; ++j) {
      if (j == i) continue;
      const double d = (barycentric_[j] / barycentric_[i]) / (points_[i] - points_[j]);
      derivative_[i * un + j] = d;
      diagonal -= d;
    }
    derivative_[i * un + i] = diagonal;
  }
  left_.resize(un);
  right_.resize(un);
  for (int j = 0; j < n; ++j) {
    left_[static_cast<std::size_t>(j)] = value(j, 0.0);
    right_[static_cast<std::size_t>(j)] = value(j, 1.0);
  }
}

double NodalBasis::value(int j, double x) const {
  double v = 1;
  const auto uj = static_cast<std::size_t>(j);
  for (std::size_t m = 0; m < points_.size(); ++m)
    if (m != uj) v *= (x - points_[m]) / (points_[uj] - points_[m]);
  return v;
}

double NodalBasis::slope(int j, double x) const {
  // d/dx prod_m (x - x_m) / (x_j - x_m) = sum_l [1 / (x_j - x_l)] prod_{m != l} (...).
  const auto uj = static_cast<std::size_t>(j);
  double sum = 0;
  for (std::size_t l = 0; l < points_.size(); ++l) {
    if (l == uj) continue;
    double term = 1 / (points_[uj] - points_[l]);
    for (std::size_t m = 0; m < points_.size(); ++m)
      if (m != uj && m != l) term *= (x - points_[m]) / (points_[uj] - points_[m]);
    sum += term;
  }
  return sum;
}

std::vector<double> NodalBasis::interpolation(const std::vector<double>& x) const {
  const int n = size();
  std::vector<double> m(x.size() * static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i)
    for (int j = 0; j < n; ++j)
      m[i * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] = value(j, x[i]);
  return m;
}

}  // namespace euler::dg
