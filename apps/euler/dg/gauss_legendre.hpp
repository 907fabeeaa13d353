#pragma once
// Gauss–Legendre quadrature on the unit interval [0, 1]: the nodes of the DG scheme's
// nodal basis and the weights of its (diagonal, exact) mass matrix.

#include <vector>

namespace euler::dg {

/// Nodes (ascending, in (0, 1)) and weights (summing to 1) of the n-point Gauss–Legendre rule
/// on [0, 1]; exact for polynomials of degree <= 2n - 1.
struct GaussLegendre {
  std::vector<double> nodes;
  std::vector<double> weights;
};

/// The n-point rule, 1 <= n <= 32 (throws std::invalid_argument otherwise). The nodes are the
/// roots of the Legendre polynomial P_n found by Newton's method from Chebyshev guesses and
/// mirrored, so that the weights are symmetric to the last bit. Pure; callable concurrently.
GaussLegendre gauss_legendre(int n);

}  // namespace euler::dg
