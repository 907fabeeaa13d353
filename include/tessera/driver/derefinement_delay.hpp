#pragma once
// Athena++'s derefinement delay (its derefine_count) for the adaptive-mesh driver (layer
// `driver`): a block's wish to merge counts only from its N-th consecutive refinement check
// that wished so, which keeps blocks from merging on a passing dip of the criterion. The
// count belongs to the block's place (level and origin), so it follows a block that moves
// to another local index or rank; a block made by a split or a merge starts at 0, and so
// does a level-0 block (as in Athena++). The counts are not saved in checkpoints.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "tessera/amr/forest.hpp"
#include "tessera/amr/mesh.hpp"

namespace tessera {

class DerefinementDelay {
 public:
  /// checks >= 1 (1: every merge wish counts at once).
  explicit DerefinementDelay(int checks) : checks_(checks) {}

  /// Main thread, collective over `comm` (every rank calls it at the same point), each time
  /// the local blocks may have changed: the counts move to the blocks' new local indices.
  void blocks_changed(const AmrMesh& mesh, MPI_Comm comm);

  /// Inside local block b's refinement task (writes b's count only; concurrent calls for
  /// different blocks are safe): the wish (+1 split, 0 keep, -1 merge) after the delay (-1
  /// becomes 0 until the count reaches `checks`).
  std::int8_t delayed(LocalBlockIndex b, std::int8_t wish) const;

 private:
  struct Count {
    BlockPlace place;
    int checks = 0;  ///< consecutive merge wishes so far
  };
  int checks_;
  mutable std::vector<Count> counts_;  // per local block
};

}  // namespace tessera
