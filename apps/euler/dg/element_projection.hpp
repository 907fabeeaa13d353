#pragma once
// The L2 projection of a function onto an element's nodal polynomials: sampled at
// order + 3 Gauss–Legendre points per axis (exact for the projection of polynomials up to
// degree order + 5), contracted axis by axis (sum factorization).

#include <array>
#include <vector>

#include "nodal_basis.hpp"

namespace euler::dg {

class ElementProjection {
 public:
  ElementProjection(const NodalBasis& basis, int dim);
  /// Sample points per element, m^dim, index q_0 + m (q_1 + m q_2).
  int points() const { return points_; }
  /// Sample point q in reference coordinates [0, 1]^dim.
  std::array<double, 3> point(int q) const;
  /// nodal (count x n^dim) = projection of the samples (count x m^dim). Callable
  /// concurrently.
  void project(const double* samples, int count, double* nodal) const;

 private:
  int n_, m_, dim_, points_;
  std::vector<double> sample_points_, weights_;  ///< the m-point rule
  std::vector<double> operator_;                 ///< [i * m + q] = w_q L_i(x_q) / w_i
};

}  // namespace euler::dg
