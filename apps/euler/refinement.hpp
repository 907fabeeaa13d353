#pragma once
// The refinement criteria of the euler app (--refine-criterion), per block:
//   density-pressure (default): the largest relative undivided gradient of density and
//     pressure over the interior cells,
//       eps = max over cells of max(|grad rho| / rho, |grad p| / p),
//       |grad q| = sqrt(sum over axes of (0.5 (q[+1] - q[-1]))^2);
//   pressure: Athena++'s blast criterion (its src/pgen/blast.cpp), the largest |grad p| / p
//     over the interior cells and the first layer of face ghosts (Athena++ takes the whole
//     ghost ring; the driver fills no edge or corner ghosts, so the face-ghost cells next
//     to a block edge, whose differences would read them, are left out).
// The block wants to split when eps > --refine-above and to merge when eps <
// --derefine-below; with --derefine-count N (Athena++'s derefine_count, 10 there) only from
// the N-th consecutive check that wished so (the driver's DerefinementDelay). Both read the
// face ghosts of the group (two layers for pressure), which must be filled.

#include "tessera/amr/block_store.hpp"

namespace euler {

/// The density-pressure eps for variable group `group` (kVars conserved variables) of a block.
double refinement_indicator(const tessera::BlockShape& shape, int dim, const double* block,
                            int group, double gamma);

/// Athena++'s blast eps (see the file comment); needs two ghost layers on every face of a
/// non-flat axis.
double pressure_indicator(const tessera::BlockShape& shape, int dim, const double* block, int group,
                          double gamma);

/// +1 (split), -1 (may merge) or 0 (stay) for an indicator value.
inline signed char refinement_wish(double eps, double refine_above, double derefine_below) {
  return eps > refine_above ? 1 : eps < derefine_below ? -1 : 0;
}

}  // namespace euler
