#include "poisson_problem.hpp"

#include <cmath>
#include <numbers>

namespace tessera::jacobi7 {

PoissonProblem::PoissonProblem(const UniformMesh& mesh) {
  const Int3 cells = mesh.cells();
  for (int a = 0; a < 3; ++a) {
    if (mesh.is_flat(a)) {
      sine_[a].assign(1, 1.0);
      continue;
    }
    ++dimensions_;
    const double h = 1.0 / (cells[a] + 1);
    coefficients_.axis[a] = 1.0 / (h * h);
    coefficients_.diagonal += 2.0 * coefficients_.axis[a];
    sine_[a].resize(cells[a]);
    for (int i = 0; i < cells[a]; ++i) sine_[a][i] = std::sin(std::numbers::pi * (i + 1) * h);
  }
  coefficients_.inverse_diagonal = 1.0 / coefficients_.diagonal;
  rhs_scale_ = dimensions_ * std::numbers::pi * std::numbers::pi;
}

}  // namespace tessera::jacobi7
