#pragma once
// The grids of a poisson solve and the multigrid V-cycle on them: a LevelHierarchy (one
// level for rbgs) with u, f and r on every level, and the tasks of one V-cycle with
// red-black smoothing, full-weighting restriction and linear prolongation.

#include <memory>
#include <vector>

#include "grid_level.hpp"
#include "tessera/mesh/level_hierarchy.hpp"
#include "tessera/session.hpp"

namespace tessera::poisson {

/// The most levels a grid of `cells` in blocks of up to `block_cells` supports: every
/// coarsening halves the cells of each non-flat axis, needs even fine blocks (so coarse
/// vertex V is fine vertex 2V within one block pair) and leaves at least 2 cells per axis
/// (one unknown). 1 if the finest grid cannot be coarsened.
int max_levels(Int3 cells, Int3 block_cells, int dimensions);

/// Smoothing counts of a V-cycle.
struct CycleOptions {
  int pre_sweeps = 2;         ///< red-black iterations before restricting
  int post_sweeps = 2;        ///< red-black iterations after prolonging
  int coarse_iterations = 1;  ///< red-black iterations on the coarsest level
};

/// The levels of a solve, finest first. Level 0's u and f hold the problem; coarser levels
/// solve for the correction of the level above. Collective (builds a LevelHierarchy).
class PoissonGrids {
 public:
  /// `levels` in [1, max_levels(...)]; `cells`, `block_cells` with z = 1 in 2-D. Throws
  /// std::invalid_argument (from LevelHierarchy) for an impossible hierarchy.
  PoissonGrids(Session& session, Int3 cells, Int3 block_cells, int dimensions, int levels);
  /// The bytes one of `ranks` ranks needs for these grids (u, f and, with levels > 1, r on
  /// every level; a face and a full halo exchange per level), for Session::check_memory.
  /// Throws std::invalid_argument as the constructor does.
  static MemoryEstimate memory_estimate(Int3 cells, Int3 block_cells, int levels, int ranks);

  int levels() const { return static_cast<int>(levels_.size()); }
  GridLevel& level(int l) { return *levels_[l]; }
  GridLevel& finest() { return *levels_.front(); }

  /// Submits one V-cycle from the finest level (tasks only; nothing waits).
  void submit_v_cycle(const CycleOptions& options);

 private:
  void submit_cycle_from(int l, const CycleOptions& options);

  Session& session_;
  int dimensions_;
  LevelHierarchy hierarchy_;
  LevelField u_;
  LevelField f_;
  std::unique_ptr<LevelField> r_;
  std::vector<std::unique_ptr<GridLevel>> levels_;
};

}  // namespace tessera::poisson
