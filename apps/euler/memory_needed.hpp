#pragma once
// The bytes one rank of a euler run needs, estimated from the options before the mesh is
// built (Session::check_memory refuses a run that cannot fit).

#include "options.hpp"
#include "tessera/runtime/memory_estimate.hpp"

namespace euler {

/// One of `ranks` ranks' share of the root mesh (validated options): two groups of kVars
/// variables per cell with kGhost ghost layers, halo message buffers, per-thread stage
/// scratch and per-block metadata. Refinement (--max-level) adds blocks at run time; the
/// estimate covers the mesh the run starts with.
tessera::MemoryEstimate memory_needed(const Options& options, int ranks, int threads);

}  // namespace euler
