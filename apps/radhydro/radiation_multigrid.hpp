#pragma once
// Geometric multigrid for radhydro's implicit radiation diffusion (--rad-solver mg): the
// system (1 + sum_f c_f) E - sum_f c_f E_f = b that rad-setup builds on the finest level,
// solved by V-cycles on a LevelHierarchy of the same blocks. Coarse couplings are the mean
// of the fine couplings across each coarse face divided by 4 (the coarse cell is twice as
// wide: a rediscretization of the same variable-coefficient operator); residuals are
// restricted by averaging the children and corrections prolonged piecewise constant; the
// smoother is damped Jacobi (omega 0.8, HARD's), the coarsest level gets many sweeps.
// Domain faces that are not periodic carry no flux (their couplings are zero on every
// level), which is the fine operator's own behaviour with copied or mirrored ghosts.

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "problems.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/level_hierarchy.hpp"
#include "tessera/session.hpp"

namespace radhydro {

/// V-cycle settings.
struct VCycleOptions {
  int pre_sweeps = 2;
  int post_sweeps = 2;
  int coarse_sweeps = 50;
  double omega = 0.8;
};

/// The hierarchy, its fields and the V-cycle's tasks. Main thread only; tasks run anywhere.
class RadiationMultigrid {
 public:
  /// The finest level has `cells` in blocks of `block_cells` (the state's blocks, so the
  /// same rank owns a block on both), `dim` non-flat axes, `boundary` per domain face.
  /// Throws std::invalid_argument if no second level fits.
  RadiationMultigrid(tessera::Session& session, tessera::Int3 cells, tessera::Int3 block_cells,
                     int dim, const std::array<Boundary, 6>& boundary, VCycleOptions options);

  int levels() const { return hierarchy_.levels(); }
  /// The finest level's fields: e (iterate), b (right-hand side), couplings c[f].
  tessera::BlockField& e() { return e_[0]; }
  tessera::BlockField& b() { return b_[0]; }
  tessera::BlockField& coupling(int f) { return (*c_[f])[0]; }
  /// Whether face f of local finest block `block` lies on a non-periodic domain face.
  bool closed_face(tessera::LocalBlockIndex block, int f) const;

  /// Submits the coarse couplings from the finest ones (once per solve, after the finest
  /// couplings are written).
  void submit_coarsen();
  /// Submits one V-cycle on the finest e.
  void submit_v_cycle() { cycle_from(0); }
  /// ||(b - A e) / diag(A)|| / ||e|| on the finest level over all ranks (collective; waits).
  double residual();

 private:
  void cycle_from(int l);
  void sweeps(int l, int count);
  void submit_residual(int l);
  void zero(int l);

  tessera::Session& session_;
  int dim_;
  std::array<Boundary, 6> boundary_;
  VCycleOptions options_;
  tessera::LevelHierarchy hierarchy_;
  tessera::LevelField e_, t_, b_, r_;
  std::vector<std::unique_ptr<tessera::LevelField>> c_storage_;
  std::array<tessera::LevelField*, 6> c_{};
  std::array<tessera::ExactSum, 2> sums_;
  tessera::Handle sums_handle_;
};

}  // namespace radhydro
