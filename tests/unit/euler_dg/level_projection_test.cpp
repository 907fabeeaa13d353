// The L2 projections between levels: exact for polynomials of degree p (children and fine
// faces), merge after split is the identity, and the merge conserves the integral.
#include "euler/dg/level_projection.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "euler/dg/tensor_ops.hpp"

namespace {

using namespace euler::dg;

/// A polynomial of degree p in each variable (total degree up to rank * p) on [0, 1]^rank.
double poly(int p, const std::array<double, 3>& x, int rank) {
  double v = 1;
  for (int a = 0; a < rank; ++a) {
    double f = 0;
    for (int k = 0; k <= p; ++k)
      f += (0.5 + 0.25 * (k + a) * ((k + a) % 2 ? -1 : 1)) *
           std::pow(x[static_cast<std::size_t>(a)], k);
    v *= f;
  }
  return v;
}

std::array<double, 3> node_point(const NodalBasis& b, int rank, int node) {
  std::array<double, 3> x{};
  for (int a = 0; a < rank; ++a) {
    x[static_cast<std::size_t>(a)] = b.points()[static_cast<std::size_t>(node % b.size())];
    node /= b.size();
  }
  return x;
}

TEST(LevelProjection, ChildOfAPolynomialIsItsRestrictionExactly) {
  for (int p = 1; p <= 9; ++p) {
    NodalBasis b(p);
    const auto proj = level_projection(b);
    for (int rank = 1; rank <= 3; ++rank) {
      const int size = tensor_size(b.size(), rank);
      std::vector<double> parent(static_cast<std::size_t>(size)), child(parent.size()),
          scratch(2 * parent.size());
      for (int i = 0; i < size; ++i)
        parent[static_cast<std::size_t>(i)] = poly(p, node_point(b, rank, i), rank);
      for (int c = 0; c < (1 << rank); ++c) {
        project_to_child(proj, rank, c, parent.data(), child.data(), scratch.data());
        for (int i = 0; i < size; ++i) {
          auto x = node_point(b, rank, i);
          for (int a = 0; a < rank; ++a)
            x[static_cast<std::size_t>(a)] =
                0.5 * (((c >> a) & 1) + x[static_cast<std::size_t>(a)]);
          EXPECT_NEAR(child[static_cast<std::size_t>(i)], poly(p, x, rank), 1e-11)
              << "p " << p << " rank " << rank << " child " << c;
        }
      }
    }
  }
}

TEST(LevelProjection, MergeAfterSplitIsTheIdentityAndConserves) {
  for (int p = 1; p <= 9; ++p) {
    NodalBasis b(p);
    const auto proj = level_projection(b);
    for (int rank = 1; rank <= 3; ++rank) {
      const int size = tensor_size(b.size(), rank);
      std::vector<double> parent(static_cast<std::size_t>(size)), back(parent.size(), 0.0),
          child(parent.size()), scratch(2 * parent.size());
      // Arbitrary nodal values (not a smooth function): the identity holds for any.
      for (int i = 0; i < size; ++i)
        parent[static_cast<std::size_t>(i)] = std::sin(1.7 * i + p) + 0.1 * rank;
      double child_integral = 0;
      for (int c = 0; c < (1 << rank); ++c) {
        project_to_child(proj, rank, c, parent.data(), child.data(), scratch.data());
        for (int i = 0; i < size; ++i) {
          double w = 1;
          for (int a = 0, r = i; a < rank; ++a, r /= b.size())
            w *= b.weights()[static_cast<std::size_t>(r % b.size())];
          child_integral += w * child[static_cast<std::size_t>(i)] / (1 << rank);
        }
        add_child_to_parent(proj, rank, c, child.data(), back.data(), scratch.data());
      }
      double parent_integral = 0;
      for (int i = 0; i < size; ++i) {
        EXPECT_NEAR(back[static_cast<std::size_t>(i)], parent[static_cast<std::size_t>(i)], 1e-13)
            << "p " << p << " rank " << rank;
        double w = 1;
        for (int a = 0, r = i; a < rank; ++a, r /= b.size())
          w *= b.weights()[static_cast<std::size_t>(r % b.size())];
        parent_integral += w * back[static_cast<std::size_t>(i)];
      }
      EXPECT_NEAR(parent_integral, child_integral, 1e-14);
    }
  }
}

TEST(LevelProjection, MergeOfAPiecewisePolynomialIsItsL2Projection) {
  // Children that are not restrictions of one polynomial (a jump at the midpoint): the merge
  // must be orthogonal to every basis polynomial, checked with a rule of many points.
  for (int p = 1; p <= 6; ++p) {
    NodalBasis b(p), fine(p + 4);
    const auto proj = level_projection(b);
    const int n = b.size();
    std::vector<double> c0(static_cast<std::size_t>(n)), c1(c0.size()), parent(c0.size(), 0.0),
        scratch(2 * c0.size());
    for (int i = 0; i < n; ++i) {
      c0[static_cast<std::size_t>(i)] = std::cos(i + 0.3);
      c1[static_cast<std::size_t>(i)] = 2 - 0.1 * i * i;
    }
    add_child_to_parent(proj, 1, 0, c0.data(), parent.data(), scratch.data());
    add_child_to_parent(proj, 1, 1, c1.data(), parent.data(), scratch.data());
    auto eval = [&](const std::vector<double>& v, double x) {
      double s = 0;
      for (int j = 0; j < n; ++j) s += v[static_cast<std::size_t>(j)] * b.value(j, x);
      return s;
    };
    for (int k = 0; k < n; ++k) {
      double residual = 0;
      for (int half = 0; half < 2; ++half)
        for (int q = 0; q < fine.size(); ++q) {
          const double xc = fine.points()[static_cast<std::size_t>(q)];
          const double x = 0.5 * (half + xc);
          const double piece = eval(half == 0 ? c0 : c1, xc);
          residual += 0.5 * fine.weights()[static_cast<std::size_t>(q)] *
                      (piece - eval(parent, x)) * b.value(k, x);
        }
      EXPECT_NEAR(residual, 0.0, 1e-13) << "p " << p << " k " << k;
    }
  }
}

}  // namespace
