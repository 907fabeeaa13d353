#pragma once
// jacobi7's iterations under --balance cost: the sweeps' measured time per block decides
// the next partition of the blocks, and the solver moves to it when that pays.

#include <cstdint>
#include <memory>

#include "options.hpp"
#include "solver.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/session.hpp"

namespace tessera::jacobi7 {

/// What the iterations of a run took, and how often they moved blocks.
struct SolveOutcome {
  double solve_s = 0;  ///< from the barrier after set-up to the last iteration, slowest rank
  std::int64_t repartitions = 0;  ///< partitions the solver moved to
  std::int64_t blocks_moved = 0;  ///< blocks sent, summed over ranks and repartitions
};

/// Sets up `solver` (on `mesh`, of `blocks` x `cells`) and runs its iterations from
/// `first` to options.iters. With --balance cost, after --balance-after and then every
/// --balance-every iterations, splits the blocks by the cost measured since the last split
/// and, for a predicted gain above --balance-gain, replaces `mesh` and `solver` by ones on
/// that partition (the new solver continues from the old one, bitwise the same). Every
/// rank, main thread; `writer` (may be null) as for Solver.
SolveOutcome solve_with_balance(Session& session, const Options& options, Int3 blocks, Int3 cells,
                                int first, CheckpointWriter* writer,
                                std::unique_ptr<UniformMesh>& mesh,
                                std::unique_ptr<Solver>& solver);

}  // namespace tessera::jacobi7
