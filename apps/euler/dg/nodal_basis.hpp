#pragma once
// The one-dimensional nodal Lagrange basis of the DG scheme: degree p, on the p + 1
// Gauss–Legendre points of [0, 1]. Elements are tensor products of it (node index
// i + n (j + n k), i fastest). Its matrices are what the predictor and corrector multiply by.

#include <vector>

namespace euler::dg {

/// Polynomial degrees the scheme supports (--order).
inline constexpr int kMinOrder = 1;
inline constexpr int kMaxOrder = 9;

/// Lagrange polynomials L_0..L_p through the Gauss–Legendre points x_0..x_p of [0, 1], with
/// the matrices built from them. Immutable after construction: share one per order between
/// threads.
class NodalBasis {
 public:
  /// Needs 0 <= order <= 31 (throws std::invalid_argument otherwise).
  explicit NodalBasis(int order);

  int order() const { return order_; }
  /// Nodes per axis, order + 1.
  int size() const { return order_ + 1; }
  const std::vector<double>& points() const { return points_; }
  /// The quadrature weights, which are also the (diagonal, exact) mass matrix: the
  /// integrand L_i L_j has degree 2p < 2p + 2.
  const std::vector<double>& weights() const { return weights_; }

  /// L_j(x), for any real x.
  double value(int j, double x) const;
  /// L_j'(x), for any real x.
  double slope(int j, double x) const;

  /// derivative()[i * n + j] = L_j'(x_i): nodal values of p' from those of p.
  const std::vector<double>& derivative() const { return derivative_; }
  /// face(s)[j] = L_j(s), s = 0 (left face) or 1 (right face): the face trace.
  const std::vector<double>& face(int side) const { return side == 0 ? left_ : right_; }

  /// interpolation(x)[i * n + j] = L_j(x[i]): values at the points x from nodal values.
  std::vector<double> interpolation(const std::vector<double>& x) const;

 private:
  int order_;
  std::vector<double> points_, weights_, barycentric_, derivative_, left_, right_;
};

}  // namespace euler::dg
