#pragma once
// The manufactured problem poisson solves (FleCSI's tutorial problem): -Laplace(u) = f on the
// unit square (unit cube with --dim 3), exact solution u = sin(K pi x) sin(L pi y)
// (sin(M pi z)), Dirichlet boundary values from u, discretized on a vertex grid.

#include <cmath>
#include <numbers>

#include "tessera/mesh/box.hpp"

namespace tessera::poisson {

/// The 5-point (2-D) or 7-point (3-D) operator on a vertex grid of spacing h_a = 1 / N_a:
/// (A u)_v = diagonal u_v - sum over axes a of axis[a] (u_{v-e_a} + u_{v+e_a}), with
/// axis[a] = 1 / h_a^2 and diagonal = 2 sum axis[a]. The z terms are absent in 2-D.
struct Stencil {
  int dimensions = 2;
  double axis[3] = {0, 0, 0};
  double diagonal = 0;
  double inverse_diagonal = 0;
};

/// The operator of a grid of `cells` cells per axis (cells.z ignored in 2-D).
Stencil make_stencil(Int3 cells, int dimensions);

/// Grid vertex v = (i, j, k) of a grid of N_a cells per axis sits at (i / N_x, j / N_y,
/// k / N_z). A mesh of N_a cells holds vertices 0 .. N_a - 1 of every axis as its cells;
/// vertices with some coordinate 0 are on the boundary (their values are held fixed),
/// the vertices at coordinate N_a (x = 1) live in the ghost layer beyond the mesh. The
/// unknowns are the vertices 1 .. N_a - 1 of every axis.
class SineProblem {
 public:
  /// `modes` K, L (, M) >= 1 half-waves per axis; modes.z ignored in 2-D.
  SineProblem(Int3 cells, int dimensions, Int3 modes);

  /// u at vertex v, 0 <= v_a <= N_a: a product of per-axis sines (1 on the flat z of 2-D).
  /// Computed on each call, not tabled per axis: a table over the global grid would cost
  /// every rank memory that grows with the global size.
  double exact(Int3 v) const { return sine(0, v.x) * sine(1, v.y) * sine(2, v.z); }
  /// f = pi^2 (K^2 + L^2 (+ M^2)) u at vertex v.
  double rhs(Int3 v) const { return rhs_scale_ * exact(v); }
  int dimensions() const { return dimensions_; }

 private:
  double sine(int axis, int i) const {
    return axis < dimensions_ ? std::sin(std::numbers::pi * modes_[axis] * i / cells_[axis]) : 1.0;
  }

  int dimensions_;
  Int3 cells_;
  Int3 modes_;
  double rhs_scale_ = 0;
};

/// Whether vertex v (global, 0 <= v_a < N_a) is a boundary vertex of a grid in `dimensions`.
inline bool is_boundary(Int3 v, int dimensions) {
  return v.x == 0 || v.y == 0 || (dimensions == 3 && v.z == 0);
}

}  // namespace tessera::poisson
