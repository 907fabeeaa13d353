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
// the N-th consecutive check that wished so (DerefinementDelay). Both read the face ghosts
// of the group (two layers for pressure), which must be filled.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/forest.hpp"
#include "tessera/amr/mesh.hpp"

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

/// Athena++'s derefinement delay: a block's merge wish counts only from its `checks`-th
/// consecutive check that wished to merge. The count belongs to the block's place (level
/// and origin), so it follows a block that moves to another local index or rank; a block
/// made by a split or a merge starts at 0, and so does a level-0 block (as in Athena++).
class DerefinementDelay {
 public:
  /// checks >= 1 (1: every merge wish counts at once).
  explicit DerefinementDelay(int checks) : checks_(checks) {}

  /// Main thread, collective over `comm` (every rank calls it at the same point), each time
  /// the local blocks may have changed: the counts move to the blocks' new local indices.
  void blocks_changed(const tessera::AmrMesh& mesh, MPI_Comm comm);

  /// Inside local block b's refinement task (writes b's count only; concurrent calls for
  /// different blocks are safe): the wish after the delay (-1 becomes 0 until the count
  /// reaches `checks`).
  signed char delayed(tessera::LocalBlockIndex b, signed char wish) const;

 private:
  struct Count {
    tessera::BlockPlace place;
    int checks = 0;  ///< consecutive merge wishes so far
  };
  int checks_;
  mutable std::vector<Count> counts_;  // per local block
};

}  // namespace euler
