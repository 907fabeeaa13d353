#include "sine_problem.hpp"

#include <cmath>
#include <numbers>

namespace tessera::poisson {

Stencil make_stencil(Int3 cells, int dimensions) {
  Stencil s;
  s.dimensions = dimensions;
  for (int a = 0; a < dimensions; ++a) {
    const double n = cells[a];
    s.axis[a] = n * n;  // 1 / h^2 with h = 1 / n
    s.diagonal += 2 * s.axis[a];
  }
  s.inverse_diagonal = 1.0 / s.diagonal;
  return s;
}

SineProblem::SineProblem(Int3 cells, int dimensions, Int3 modes)
    : dimensions_(dimensions), cells_(cells), modes_(modes) {
  double wave_numbers = 0;
  for (int a = 0; a < dimensions; ++a) wave_numbers += static_cast<double>(modes[a]) * modes[a];
  rhs_scale_ = std::numbers::pi * std::numbers::pi * wave_numbers;
}

}  // namespace tessera::poisson
