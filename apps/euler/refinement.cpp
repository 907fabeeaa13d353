#include "refinement.hpp"

#include <algorithm>
#include <cmath>

#include "problems.hpp"

namespace euler {

namespace {

double pressure_at(const double* u, std::size_t c, std::size_t sv, double gamma) {
  const double rho = u[c];
  const double mx = u[c + sv], my = u[c + 2 * sv], mz = u[c + 3 * sv];
  return (gamma - 1) * (u[c + 4 * sv] - 0.5 * (mx * mx + my * my + mz * mz) / rho);
}

}  // namespace

double refinement_indicator(const tessera::BlockShape& s, int dim, const double* block, int group,
                            double gamma) {
  const tessera::BlockLayout l = s.layout();
  const auto sv = static_cast<std::size_t>(l.stride_var());
  const double* u = block + static_cast<std::size_t>(group * kVars) * sv;
  const std::size_t stride[3] = {1, static_cast<std::size_t>(l.stride_y()),
                                 static_cast<std::size_t>(l.stride_z())};
  // A maximum of non-negative values (NaN, from a bad cell, never wins std::max): any order
  // of the cells gives the same result.
  double eps = 0;
  for (int k = 0; k < s.cells[2]; ++k)
    for (int j = 0; j < s.cells[1]; ++j)
      for (int i = 0; i < s.cells[0]; ++i) {
        const auto c = static_cast<std::size_t>(l.index(0, i, j, k));
        const double rho = u[c], p = pressure_at(u, c, sv, gamma);
        double grho = 0, gp = 0;
        for (int a = 0; a < dim; ++a) {
          const std::size_t lo = c - stride[a], hi = c + stride[a];
          const double dr = 0.5 * (u[hi] - u[lo]);
          const double dp = 0.5 * (pressure_at(u, hi, sv, gamma) - pressure_at(u, lo, sv, gamma));
          grho += dr * dr;
          gp += dp * dp;
        }
        eps = std::max(eps, std::max(std::sqrt(grho) / rho, std::sqrt(gp) / p));
      }
  return eps;
}

}  // namespace euler
