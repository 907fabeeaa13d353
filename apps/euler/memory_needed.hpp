#pragma once
// The bytes one rank of a euler run needs, estimated from the options before the mesh is
// built (Session::check_memory refuses a run that cannot fit).

#include "options.hpp"
#include "tessera/runtime/memory_estimate.hpp"

namespace euler {

/// Block slots one of `ranks` ranks may hold (validated options). Uniform: its share of the
/// root blocks. Adaptive: --max-blocks-per-rank, or automatically the worst case the run
/// allows (every root block refined to --max-level, plus the parents alive while their
/// children are made: R 2^(dim L) (1 + 2^-dim) / ranks + 2^dim for R root blocks) when that
/// is at most max(4096, 8 x the rank's root blocks), else that bound. The driver stops the
/// run with an error naming --max-blocks-per-rank if adaptation ever exceeds it.
long long block_slots_per_rank(const Options& options, int ranks);

/// One rank's bytes for block_slots_per_rank blocks (validated options): two groups of
/// kVars variables per cell with kGhost ghost layers, flux registers at level jumps, halo
/// message buffers, the split stage's per-block buffers (--stage-tasks split) or the fused
/// stage's per-thread scratch, and per-block metadata.
tessera::MemoryEstimate memory_needed(const Options& options, int ranks, int threads);

}  // namespace euler
