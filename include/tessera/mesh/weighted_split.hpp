#pragma once
// Cost balance: cutting a space-filling-curve order of blocks with measured costs into
// consecutive parts, one per rank, each part's cost proportional to its rank's speed (the
// "virtualization factor" of Bamboo/Tarragon: a rank twice as fast gets twice the work).

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "tessera/runtime/cost_table.hpp"

namespace tessera {

/// Cuts blocks 0 .. costs.size() - 1 (in curve order, costs >= 0) into speeds.size()
/// consecutive parts, part r for a rank of speed speeds[r] (> 0), and returns each part's
/// block count. Each cut is the block boundary nearest to the ideal one (the total cost
/// times the speeds before it over all speeds; ties to the earlier boundary), so every
/// part's cost is within one block's cost (the largest) of its ideal share. Parts may be
/// empty. Throws std::invalid_argument for no part, a negative or non-finite cost or a
/// speed <= 0. Deterministic: the same inputs give the same counts on every rank.
std::vector<std::int64_t> weighted_split(std::span<const double> costs,
                                         std::span<const double> speeds);

/// Collective over `comm`, whose ranks hold consecutive ranges of the curve in rank order.
/// Gathers every rank's block costs (`local_costs`, this rank's blocks in curve order)
/// and speed and returns weighted_split's block count per rank, the same on every rank. A
/// rank that measured nothing (speed 0) is given the mean measured speed and its blocks
/// the mean measured cost; with no measurement anywhere the counts stay those of the
/// current partition (local_costs.size() per rank).
std::vector<std::int64_t> cost_balanced_counts(MPI_Comm comm, std::span<const double> local_costs,
                                               double local_speed);

/// cost_balanced_counts of a cost window whose slots are this rank's `local_blocks` blocks
/// in curve order: CostWindow::normalized_cost per block, CostWindow::speed.
std::vector<std::int64_t> cost_balanced_counts(MPI_Comm comm, const CostWindow& window,
                                               std::size_t local_blocks);

}  // namespace tessera
