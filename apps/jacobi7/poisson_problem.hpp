#pragma once
// The manufactured Poisson problem jacobi7 solves: -Laplace(u) = f on the unit cube (unit
// square when z is flat) with u = 0 on the boundary, exact solution
// u = sin(pi x) sin(pi y) sin(pi z), discretized on the mesh's vertex-centred grid.

#include <vector>

#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera::jacobi7 {

/// The 7-point operator on a grid of spacing h: (A u)_i = diagonal * u_i - sum over axes of
/// axis[a] * (u_{i-e_a} + u_{i+e_a}), axis[a] = 1 / h_a^2 (0 on a flat axis).
struct StencilCoefficients {
  double axis[3] = {0, 0, 0};
  double diagonal = 0;
  double inverse_diagonal = 0;
};

/// Grid, operator and exact solution. Unknown (i, j, k) of the global grid sits at
/// ((i+1) h_x, (j+1) h_y, (k+1) h_z) with h_a = 1 / (cells_a + 1), so the boundary nodes
/// (where u = 0) are the ghost cells outside the mesh.
class PoissonProblem {
 public:
  explicit PoissonProblem(const UniformMesh& mesh);

  const StencilCoefficients& coefficients() const { return coefficients_; }
  /// Exact solution at global cell (i, j, k): a product of per-axis sines (1 on flat axes).
  double exact(int i, int j, int k) const { return sine_[0][i] * sine_[1][j] * sine_[2][k]; }
  /// Right-hand side: dimensions * pi^2 * exact.
  double rhs(int i, int j, int k) const { return rhs_scale_ * exact(i, j, k); }
  /// Per-axis sine tables, indexed by global cell.
  const std::vector<double>& sine(int axis) const { return sine_[axis]; }
  int dimensions() const { return dimensions_; }

 private:
  StencilCoefficients coefficients_;
  std::vector<double> sine_[3];
  double rhs_scale_ = 0;
  int dimensions_ = 0;
};

}  // namespace tessera::jacobi7
