#include "multigrid.hpp"

#include <stdexcept>

#include "red_black_kernels.hpp"

namespace tessera::poisson {
namespace {

HierarchySpec hierarchy_spec(Int3 cells, Int3 block_cells, int levels) {
  HierarchySpec spec;
  spec.cells = cells;
  spec.block_cells = block_cells;
  spec.levels = levels;
  spec.ghost = 1;
  spec.prolongation_ghost = 1;
  spec.halo.copy_per_block = true;
  return spec;
}

}  // namespace

int max_levels(Int3 cells, Int3 block_cells, int dimensions) {
  int levels = 1;
  for (;;) {
    std::vector<LevelShape> shapes;
    try {
      shapes = level_shapes(hierarchy_spec(cells, block_cells, levels + 1));
    } catch (const std::invalid_argument&) {
      return levels;
    }
    const LevelShape& fine = shapes[levels - 1];
    const LevelShape& coarse = shapes[levels];
    for (int a = 0; a < dimensions; ++a) {
      if (fine.block_cells[a] % 2 != 0 || coarse.cells()[a] < 2) return levels;
    }
    ++levels;
  }
}

PoissonGrids::PoissonGrids(Session& session, Int3 cells, Int3 block_cells, int dimensions,
                           int levels)
    : session_(session),
      dimensions_(dimensions),
      hierarchy_(hierarchy_spec(cells, block_cells, levels), session.comm(), session.exec()),
      u_(hierarchy_, session.runtime(), "u"),
      f_(hierarchy_, session.runtime(), "f") {
  if (levels > 1) r_ = std::make_unique<LevelField>(hierarchy_, session.runtime(), "r");
  for (int l = 0; l < levels; ++l) {
    levels_.push_back(std::make_unique<GridLevel>(session, hierarchy_, l, u_[l], f_[l],
                                                  r_ ? &(*r_)[l] : nullptr, dimensions));
  }
}

MemoryEstimate PoissonGrids::memory_estimate(Int3 cells, Int3 block_cells, int levels, int ranks) {
  return LevelHierarchy::memory_estimate(hierarchy_spec(cells, block_cells, levels), ranks,
                                         levels > 1 ? 3 : 2, 0, 2);
}

void PoissonGrids::submit_v_cycle(const CycleOptions& options) {
  submit_cycle_from(0, options);
}

void PoissonGrids::submit_cycle_from(int l, const CycleOptions& options) {
  GridLevel& fine = level(l);
  if (l == levels() - 1) {
    fine.submit_iterations(options.coarse_iterations);
    return;
  }
  GridLevel& coarse = level(l + 1);
  fine.submit_iterations(options.pre_sweeps);
  fine.submit_residual();
  const int dims = dimensions_;
  hierarchy_.transfer(l).restrict_field(fine.r(), coarse.f(),
                                        [dims](ConstGridView from, GridView to, Int3 coarse_cells) {
                                          restrict_full_weighting(from, to, coarse_cells, dims);
                                        });
  coarse.submit_zero_u();
  submit_cycle_from(l + 1, options);
  coarse.exchange_u_full();
  hierarchy_.transfer(l).prolong_field(coarse.u(), fine.u(),
                                       [dims](ConstGridView from, GridView to, Int3 fine_cells) {
                                         prolong_linear_add(from, to, fine_cells, dims);
                                       });
  fine.u_changed();
  fine.submit_iterations(options.post_sweeps);
}

}  // namespace tessera::poisson
