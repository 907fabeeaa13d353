#include "refinement.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "problems.hpp"

namespace euler {

namespace {

// The largest max(|grad rho| / rho (with `density`), |grad p| / p) over the cells of the
// box [lo, hi] (inclusive) of variable group `group`: a maximum of non-negative values (NaN,
// from a bad cell, never wins std::max), so the order of the cells does not matter.
double max_gradient(const tessera::BlockShape& s, int dim, const double* block, int group,
                    double gamma, bool density, std::array<int, 3> lo, std::array<int, 3> hi) {
  const tessera::BlockLayout l = s.layout();
  const auto sv = static_cast<std::size_t>(l.stride_var());
  const double* u = block + static_cast<std::size_t>(group * kVars) * sv;
  const std::size_t stride[3] = {1, static_cast<std::size_t>(l.stride_y()),
                                 static_cast<std::size_t>(l.stride_z())};
  double eps = 0;
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int i = lo[0]; i <= hi[0]; ++i) {
        const auto c = static_cast<std::size_t>(l.index(0, i, j, k));
        double grho = 0, gp = 0;
        for (int a = 0; a < dim; ++a) {
          const std::size_t down = c - stride[a], up = c + stride[a];
          const double dr = 0.5 * (u[up] - u[down]);
          const double dp = 0.5 * (pressure(u + up, sv, gamma) - pressure(u + down, sv, gamma));
          grho += dr * dr;
          gp += dp * dp;
        }
        const double ep = std::sqrt(gp) / pressure(u + c, sv, gamma);
        eps = std::max(eps, density ? std::max(std::sqrt(grho) / u[c], ep) : ep);
      }
  return eps;
}

}  // namespace

double refinement_indicator(const tessera::BlockShape& s, int dim, const double* block, int group,
                            double gamma) {
  return max_gradient(s, dim, block, group, gamma, true, {0, 0, 0},
                      {s.cells[0] - 1, s.cells[1] - 1, s.cells[2] - 1});
}

double pressure_indicator(const tessera::BlockShape& s, int dim, const double* block, int group,
                          double gamma) {
  const std::array<int, 3> n = s.cells;
  double eps =
      max_gradient(s, dim, block, group, gamma, false, {0, 0, 0}, {n[0] - 1, n[1] - 1, n[2] - 1});
  // The first face-ghost layer on each side of each axis, without the cells next to an
  // edge (their tangential differences would read edge ghosts, which stay unset).
  for (int a = 0; a < dim; ++a)
    for (const int side : {-1, n[a]}) {
      std::array<int, 3> lo{0, 0, 0}, hi{n[0] - 1, n[1] - 1, n[2] - 1};
      for (int t = 0; t < dim; ++t)
        if (t != a) lo[t] = 1, hi[t] = n[t] - 2;
      lo[a] = hi[a] = side;
      eps = std::max(eps, max_gradient(s, dim, block, group, gamma, false, lo, hi));
    }
  return eps;
}

}  // namespace euler
