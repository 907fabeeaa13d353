#pragma once
// The refinement criterion of the DG scheme for smooth flows: how much of an element's
// density variation sits in its highest modes. The nodal values are expanded in Legendre
// polynomials (tensor products, degree j_a <= p per axis); the indicator is
//   E_top / E_var,  E_top = energy (L2) of the modes with some j_a = p,
//                   E_var = energy of every mode but the mean,
// in [0, 1] (0 when E_var is below 1e-24 of the mean's energy): 0 for a polynomial of degree < p
// per axis, small when the modes decay fast (a well-resolved smooth flow), near 1 when the element
// does not resolve the variation (the idea of Persson and Peraire's smoothness indicator, on the
// variation instead of the whole state so that a small bump on a large mean still counts). A solver
// refines an element where it exceeds an upper threshold and coarsens where it is below a lower
// one.

#include <vector>

#include "nodal_basis.hpp"

namespace euler::dg {

class ModalIndicator {
 public:
  ModalIndicator(const NodalBasis& basis, int dim);
  /// The indicator of the nodal values `u` (n^dim of one variable). `scratch` holds
  /// 3 n^dim values. Callable concurrently with distinct scratch.
  double operator()(const double* u, double* scratch) const;

 private:
  int n_, dim_;
  std::vector<double> to_modal_, to_modal_t_;  ///< [j * n + i] = (2j + 1) w_i P_j(x_i)
};

}  // namespace euler::dg
