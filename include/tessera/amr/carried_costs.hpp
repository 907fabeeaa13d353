#pragma once
// Measured block costs that follow their blocks (layer `amr`): a block's cost stays with it
// when it moves to another rank, its children each take it when it is split (a child has
// the parent's cells), and a merged parent takes its children's mean (the same reason).
// A cost balance (mesh/weighted_split.hpp) then cuts the curve by what each block cost,
// not by its rank's mean.

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "tessera/amr/forest.hpp"

namespace tessera {

/// The costs of the blocks Forest::adapt made, in its new local order, from `costs` (one
/// per old local block) and the adaptation's `sources`, `children` per family (8; 2-D: 4):
/// a kept block keeps its cost, a child takes its parent's, a merged parent the mean of its
/// children's. Throws std::invalid_argument when a source names a block outside `costs`.
/// Pure: callable anywhere.
std::vector<double> costs_after_adapt(std::span<const double> costs,
                                      std::span<const AdaptSource> sources, int children);

/// Collective over `comm`. The costs of this rank's blocks after a repartition along the
/// curve (the curve order unchanged): `costs` holds one per block this rank had, when rank r
/// held global indices [old_offsets[r], old_offsets[r + 1]); the result one per block it
/// has now, under `new_offsets`. Both offset lists have size() + 1 entries, start at 0 and
/// end at the same total; throws std::invalid_argument else. Main thread (it calls MPI).
std::vector<double> costs_after_partition(MPI_Comm comm, std::span<const std::int64_t> old_offsets,
                                          std::span<const std::int64_t> new_offsets,
                                          std::span<const double> costs);

/// The slice of `global_costs` (every block's cost in curve order) that this rank `rank`
/// holds under `offsets`. Throws std::invalid_argument when the sizes do not agree.
std::vector<double> costs_of_rank(std::span<const double> global_costs,
                                  std::span<const std::int64_t> offsets, int rank);

}  // namespace tessera
