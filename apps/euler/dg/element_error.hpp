#pragma once
// The error of an element's density polynomial against an exact solution, integrated with
// order + 3 Gauss–Legendre points per axis (exact for the polynomial part up to degree
// 2 order + 5).

#include <array>
#include <functional>
#include <vector>

#include "nodal_basis.hpp"

namespace euler::dg {

class ElementError {
 public:
  ElementError(const NodalBasis& basis, int dim);
  /// Integrals over one element (lower corner `corner`, widths dx) of |rho_h - rho| and
  /// (rho_h - rho)^2, rho_h the nodal polynomial `rho` (n^dim values), rho = exact(x).
  /// Callable concurrently.
  std::array<double, 2> integrate(
      const double* rho, const std::array<double, 3>& corner, const std::array<double, 3>& dx,
      const std::function<double(const std::array<double, 3>&)>& exact) const;

 private:
  int n_, m_, dim_;
  std::vector<double> points_, weights_, interpolation_;  ///< [q * n + j] = L_j(x_q)
};

}  // namespace euler::dg
