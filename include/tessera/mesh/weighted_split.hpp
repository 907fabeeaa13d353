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
/// block count. The step time (split_time: the slowest part's cost over its speed) is the
/// least among the cuts whose parts stay within one block's cost (the largest) above their
/// ideal share (the total times speeds[r] over all speeds); each cut is the boundary
/// nearest to its ideal one that keeps that time. So every part is within one block's
/// cost of its ideal share, and the step is never longer than with every cut nearest to
/// its ideal one. Parts may be empty. Throws std::invalid_argument for no part, a negative
/// or non-finite cost or a speed <= 0. Deterministic: the same inputs give the same counts
/// on every rank.
std::vector<std::int64_t> weighted_split(std::span<const double> costs,
                                         std::span<const double> speeds);

/// The time one step takes under a partition: the largest over parts of the part's cost
/// (its counts[r] blocks of `costs`, consecutive in curve order) over its speed. Needs as
/// many counts as speeds (> 0), summing to costs.size(); throws std::invalid_argument else.
double split_time(std::span<const double> costs, std::span<const double> speeds,
                  std::span<const std::int64_t> counts);

/// What cost_balanced_split found: the current partition, the balanced one and their
/// predicted step times, from the gathered costs and speeds (the same on every rank).
struct CostSplit {
  std::vector<std::int64_t> current;  ///< blocks per rank now
  std::vector<std::int64_t> counts;   ///< blocks per rank of the weighted split
  /// Every block's cost in curve order, as the split used them (a rank that measured
  /// nothing: the mean measured cost).
  std::vector<double> costs;
  double current_time = 0;   ///< split_time of `current` (0: nothing measured)
  double balanced_time = 0;  ///< split_time of `counts`

  /// True when `counts` differs from `current` and its step is predicted at least
  /// `min_gain` (a fraction of the current step, >= 0) faster: measured costs carry noise
  /// of a few percent, and a move that gains less costs its messages for nothing.
  bool worth_moving(double min_gain) const {
    return counts != current && balanced_time < current_time * (1.0 - min_gain);
  }
};

/// Collective over `comm`, as cost_balanced_counts, returning the current partition and
/// the predicted step times with the counts (CostSplit::worth_moving decides whether to move).
CostSplit cost_balanced_split(MPI_Comm comm, std::span<const double> local_costs,
                              double local_speed);

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
/// cost_balanced_split of the same window.
CostSplit cost_balanced_split(MPI_Comm comm, const CostWindow& window, std::size_t local_blocks);

}  // namespace tessera
