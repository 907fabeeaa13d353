// The nodal basis: cardinal at its nodes, derivative and face matrices exact for
// polynomials of degree p, and a diagonal mass matrix that is exact.
#include "euler/dg/nodal_basis.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using euler::dg::NodalBasis;

/// A polynomial of degree `degree` with irregular coefficients, and its derivative.
double poly(int degree, double x) {
  double v = 0;
  for (int k = 0; k <= degree; ++k) v += (0.3 + 0.7 * k * (k % 3 == 1 ? -1 : 1)) * std::pow(x, k);
  return v;
}
double poly_slope(int degree, double x) {
  double v = 0;
  for (int k = 1; k <= degree; ++k)
    v += (0.3 + 0.7 * k * (k % 3 == 1 ? -1 : 1)) * k * std::pow(x, k - 1);
  return v;
}

TEST(NodalBasis, IsCardinalAtItsNodes) {
  for (int p = 1; p <= 9; ++p) {
    NodalBasis b(p);
    for (int i = 0; i < b.size(); ++i)
      for (int j = 0; j < b.size(); ++j)
        EXPECT_NEAR(b.value(j, b.points()[static_cast<std::size_t>(i)]), i == j ? 1.0 : 0.0, 1e-13);
  }
}

TEST(NodalBasis, DerivativeAndFaceMatricesAreExactForDegreeP) {
  for (int p = 1; p <= 9; ++p) {
    NodalBasis b(p);
    const int n = b.size();
    for (int i = 0; i < n; ++i) {
      double d = 0;
      for (int j = 0; j < n; ++j)
        d += b.derivative()[static_cast<std::size_t>(i * n + j)] *
             poly(p, b.points()[static_cast<std::size_t>(j)]);
      EXPECT_NEAR(d, poly_slope(p, b.points()[static_cast<std::size_t>(i)]), 2e-11) << "p " << p;
      EXPECT_NEAR(
          b.slope(i, 0.37),
          [&] {
            double s = 0;  // the slope from the derivative matrix, interpolated at 0.37
            for (int k = 0; k < n; ++k)
              s += b.value(k, 0.37) * b.derivative()[static_cast<std::size_t>(k * n + i)];
            return s;
          }(),
          1e-9);
    }
    for (int side = 0; side < 2; ++side) {
      double v = 0;
      for (int j = 0; j < n; ++j)
        v += b.face(side)[static_cast<std::size_t>(j)] *
             poly(p, b.points()[static_cast<std::size_t>(j)]);
      EXPECT_NEAR(v, poly(p, side), 1e-11) << "p " << p;
    }
  }
}

TEST(NodalBasis, DiagonalMassMatrixIsTheExactOne) {
  // M_ij = integral of L_i L_j over [0, 1], computed with a rule of many more points.
  for (int p = 1; p <= 9; ++p) {
    NodalBasis b(p), fine(p + 6);
    for (int i = 0; i < b.size(); ++i)
      for (int j = 0; j < b.size(); ++j) {
        double m = 0;
        for (int q = 0; q < fine.size(); ++q) {
          const double x = fine.points()[static_cast<std::size_t>(q)];
          m += fine.weights()[static_cast<std::size_t>(q)] * b.value(i, x) * b.value(j, x);
        }
        EXPECT_NEAR(m, i == j ? b.weights()[static_cast<std::size_t>(i)] : 0.0, 1e-14);
      }
  }
}

}  // namespace
