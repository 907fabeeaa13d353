// The DG refinement criterion: zero for polynomials of degree < p, falling as an element
// resolves a smooth bump better, and large for a front the element cannot resolve.
#include "euler/dg/modal_indicator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "euler/dg/element_projection.hpp"
#include "euler/dg/tensor_ops.hpp"

namespace {

using namespace euler::dg;

/// The indicator of f's L2 projection onto the element [lo, lo + h]^dim.
template <class F>
double indicator_of(const NodalBasis& basis, int dim, double lo, double h, F f) {
  const ElementProjection projection(basis, dim);
  std::vector<double> samples(static_cast<std::size_t>(projection.points()));
  for (int q = 0; q < projection.points(); ++q) {
    auto x = projection.point(q);
    for (int a = 0; a < dim; ++a)
      x[static_cast<std::size_t>(a)] = lo + h * x[static_cast<std::size_t>(a)];
    samples[static_cast<std::size_t>(q)] = f(x);
  }
  const int size = tensor_size(basis.size(), dim);
  std::vector<double> nodal(static_cast<std::size_t>(size)), scratch(3 * nodal.size());
  projection.project(samples.data(), 1, nodal.data());
  return ModalIndicator(basis, dim)(nodal.data(), scratch.data());
}

TEST(ModalIndicator, IsZeroForDegreeBelowPAndForConstants) {
  for (int p = 2; p <= 9; ++p) {
    NodalBasis basis(p);
    for (int dim = 2; dim <= 3; ++dim) {
      EXPECT_LT(indicator_of(basis, dim, 0, 1,
                             [&](const std::array<double, 3>& x) {
                               return 3 + std::pow(x[0], p - 1) * x[1] -
                                      2 * std::pow(x[dim - 1], p - 1);
                             }),
                1e-24)
          << "p " << p;
      EXPECT_EQ(indicator_of(basis, dim, 0, 1, [](const std::array<double, 3>&) { return 1.5; }),
                0.0);
    }
  }
}

TEST(ModalIndicator, FallsAsTheElementResolvesABumpAndIsLargeWhenItCannot) {
  const auto bump = [](const std::array<double, 3>& x) {
    const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5);
    return 1 + 0.5 * std::exp(-r2 / (0.1 * 0.1));
  };
  for (int p = 3; p <= 6; ++p) {
    NodalBasis basis(p);
    double previous = 1.1;
    // Elements of width h around the bump's flank, halving h.
    for (double h = 0.4; h > 0.02; h /= 2) {
      const double s = indicator_of(basis, 2, 0.55 - h / 2, h, bump);
      EXPECT_LT(s, previous) << "p " << p << " h " << h;
      previous = s;
    }
    EXPECT_LT(previous, 1e-4) << "p " << p;  // resolved
    // A front much thinner than the element: its modes decay slowly, the top ones keep a
    // share of the variation.
    EXPECT_GT(indicator_of(basis, 2, 0, 1,
                           [&](const std::array<double, 3>& x) {
                             return 1 + 0.5 * std::tanh((x[0] - 0.43) / 0.01);
                           }),
              0.02)
        << "p " << p;
  }
}

}  // namespace
