#include "gauss_legendre.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace euler::dg {

namespace {

/// P_n(x) and P_n'(x) by the three-term recurrence.
void legendre(int n, double x, double& p, double& dp) {
  double p0 = 1, p1 = x;
  if (n == 0) {
    p = 1;
    dp = 0;
    return;
  }
  for (int k = 2; k <= n; ++k) {
    const double pk = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  p = p1;
  dp = n * (x * p1 - p0) / (x * x - 1);
}

}  // namespace

GaussLegendre gauss_legendre(int n) {
  if (n < 1 || n > 32)
    throw std::invalid_argument("gauss_legendre: points must be in 1..32, got " +
                                std::to_string(n));
  GaussLegendre rule;
  rule.nodes.assign(static_cast<std::size_t>(n), 0.0);
  rule.weights.assign(static_cast<std::size_t>(n), 0.0);
  // Roots on [-1, 1] in descending order from x_k ~ cos(pi (k + 3/4) / (n + 1/2)); the
  // lower half is the mirror image of the upper one, so the rule is exactly symmetric.
  for (int k = 0; k < (n + 1) / 2; ++k) {
    double x = std::cos(std::numbers::pi * (k + 0.75) / (n + 0.5));
    double p = 0, dp = 0;
    for (int it = 0; it < 100; ++it) {
      legendre(n, x, p, dp);
      const double step = p / dp;
      x -= step;
      if (std::abs(step) < 1e-17) break;
    }
    legendre(n, x, p, dp);
    const double w = 2 / ((1 - x * x) * dp * dp);
    // [-1, 1] -> [0, 1]: node (1 + x) / 2, weight w / 2.
    const auto hi = static_cast<std::size_t>(n - 1 - k), lo = static_cast<std::size_t>(k);
    rule.nodes[hi] = 0.5 + 0.5 * x;
    rule.nodes[lo] = 0.5 - 0.5 * x;
    rule.weights[hi] = rule.weights[lo] = 0.5 * w;
  }
  if (n % 2 == 1) rule.nodes[static_cast<std::size_t>(n / 2)] = 0.5;
  return rule;
}

}  // namespace euler::dg
