#pragma once
// The refinement criterion of the euler app: per block, the largest relative undivided
// gradient of density and pressure over its interior cells,
//   eps = max over cells of max(|grad rho| / rho, |grad p| / p),
//   |grad q| = sqrt(sum over axes of (0.5 (q[+1] - q[-1]))^2),
// (Athena++'s blast criterion, applied to density too); the block wants to split when
// eps > --refine-above and allows merging when eps < --derefine-below. Reads the face
// ghosts of the group, which must be filled.

#include "tessera/amr/block_store.hpp"

namespace euler {

/// The criterion's eps for variable group `group` (kVars conserved variables) of a block.
double refinement_indicator(const tessera::BlockShape& shape, int dim, const double* block,
                            int group, double gamma);

/// +1 (split), -1 (may merge) or 0 (stay) for an indicator value.
inline signed char refinement_wish(double eps, double refine_above, double derefine_below) {
  return eps > refine_above ? 1 : eps < derefine_below ? -1 : 0;
}

}  // namespace euler
