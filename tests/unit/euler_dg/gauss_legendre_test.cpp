// The Gauss–Legendre rules of the DG scheme: exact to degree 2n - 1, and not beyond.
#include "euler/dg/gauss_legendre.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

double integrate_monomial(const euler::dg::GaussLegendre& rule, int degree) {
  double s = 0;
  for (std::size_t i = 0; i < rule.nodes.size(); ++i)
    s += rule.weights[i] * std::pow(rule.nodes[i], degree);
  return s;
}

TEST(GaussLegendre, IntegratesMonomialsUpToDegreeTwoNMinusOneExactly) {
  for (int n = 1; n <= 10; ++n) {
    const auto rule = euler::dg::gauss_legendre(n);
    ASSERT_EQ(rule.nodes.size(), static_cast<std::size_t>(n));
    for (int d = 0; d <= 2 * n - 1; ++d)
      EXPECT_NEAR(integrate_monomial(rule, d), 1.0 / (d + 1), 4e-16)
          << "n " << n << " degree " << d;
    // Degree 2n is not integrated exactly: the rule is the one with n points, not more.
    EXPECT_GT(std::abs(integrate_monomial(rule, 2 * n) - 1.0 / (2 * n + 1)), 1e-12) << "n " << n;
  }
}

TEST(GaussLegendre, NodesAscendInsideTheIntervalAndMirror) {
  for (int n = 1; n <= 10; ++n) {
    const auto rule = euler::dg::gauss_legendre(n);
    for (std::size_t i = 0; i < rule.nodes.size(); ++i) {
      EXPECT_GT(rule.nodes[i], 0.0);
      EXPECT_LT(rule.nodes[i], 1.0);
      if (i > 0) {
        EXPECT_GT(rule.nodes[i], rule.nodes[i - 1]);
      }
      EXPECT_NEAR(rule.nodes[i], 1.0 - rule.nodes[rule.nodes.size() - 1 - i], 2e-16);
      EXPECT_EQ(rule.weights[i], rule.weights[rule.nodes.size() - 1 - i]);
    }
  }
}

TEST(GaussLegendre, RejectsPointCountsOutsideItsRange) {
  EXPECT_THROW(euler::dg::gauss_legendre(0), std::invalid_argument);
  EXPECT_THROW(euler::dg::gauss_legendre(33), std::invalid_argument);
}

}  // namespace
