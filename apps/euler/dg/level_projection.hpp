#pragma once
// The L2 projections between mesh levels for nodal DG data: parent element <-> its 2^dim
// children (split and merge), and coarse face <-> the 2^(dim-1) fine faces on it
// (non-conforming faces). Both are the same one-dimensional pair of operators applied along
// each axis of a tensor (an element: rank dim; a face: rank dim - 1).
//
// Exactness: a parent polynomial of degree p restricted to a child is a polynomial of degree
// p, so the child's nodal interpolant (to_child) is its L2 projection, exactly. The merge
// (to_parent) is the L2 projection of the piecewise polynomial onto degree p, computed with
// the child's Gauss rule (degree 2p integrands: exact); to_parent after to_child is the
// identity, and the merge conserves the integral (mass, momentum, energy; fluxes on faces).

#include <array>
#include <vector>

#include "nodal_basis.hpp"

namespace euler::dg {

/// One axis: half c = 0 covers [0, 1/2] of the parent interval, c = 1 covers [1/2, 1].
struct LevelProjection {
  int n = 0;  ///< nodes per axis
  /// to_child[c][i * n + j]: child node i from parent node j (= L_j((c + x_i) / 2)).
  std::array<std::vector<double>, 2> to_child, to_child_t;
  /// to_parent[c][i * n + j]: parent node i's share from child c's node j
  /// (= w_j L_i((c + x_j) / 2) / (2 w_i)); the parent is the sum over both halves.
  std::array<std::vector<double>, 2> to_parent, to_parent_t;
};

/// The operators of `basis`. Pure; build once per order.
LevelProjection level_projection(const NodalBasis& basis);

/// The child `child` (bit a: the upper half along axis a) of a parent tensor of rank `rank`:
/// out = projection of `parent` onto the child. `scratch` holds 2 n^rank values.
void project_to_child(const LevelProjection& proj, int rank, int child, const double* parent,
                      double* out, double* scratch);

/// parent += the share of child `child` in the parent's L2 projection (call for each child
/// and sum). `scratch` holds 2 n^rank values.
void add_child_to_parent(const LevelProjection& proj, int rank, int child, const double* in,
                         double* parent, double* scratch);

}  // namespace euler::dg
