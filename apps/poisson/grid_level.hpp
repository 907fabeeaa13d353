#pragma once
// One grid of the poisson solvers: a uniform block mesh with its halo exchange, the
// unknown u, the right-hand side f and (for multigrid) the residual r, and the tasks that
// smooth and measure them.

#include <memory>
#include <string>
#include <vector>

#include "red_black_kernels.hpp"
#include "sine_problem.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/session.hpp"

namespace tessera::poisson {

/// A grid of `blocks` x `block_cells` cells (z flat in 2-D) with ghost width 1. Ghosts
/// facing other blocks are filled by halo exchanges (local copies and messages), so a
/// block's tasks touch only that block: the red half-sweeps of all blocks run in parallel.
/// Build the levels of a run in the same order on every rank (the halo exchange reserves
/// MPI tags). Main thread only; tasks it submits may run on any thread.
class GridLevel {
 public:
  /// Throws std::invalid_argument (from UniformMesh) for an impossible block grid.
  GridLevel(Session& session, Int3 blocks, Int3 block_cells, int dimensions, bool with_residual,
            const std::string& name);

  const UniformMesh& mesh() const { return *mesh_; }
  Int3 cells() const { return mesh_->cells(); }
  int dimensions() const { return stencil_.dimensions; }
  const Stencil& stencil() const { return stencil_; }
  BlockField& u() { return u_; }
  BlockField& f() { return f_; }
  /// The residual field; only for levels built with_residual.
  BlockField& r() { return *r_; }
  /// Global vertex of block b's cell (0, 0, 0).
  Int3 origin(LocalBlockIndex b) const { return mesh_->cell_origin(mesh_->local_block(b)); }
  /// Priority of block b's tasks: skeleton blocks first under dataflow.
  Priority priority(LocalBlockIndex b) const;

  /// Submits the halo exchange of u unless its ghosts are current (no sweep since the last).
  void exchange_u();
  /// Submits `count` red-black iterations, each: exchange u, red half-sweeps, exchange u,
  /// black half-sweeps.
  void submit_iterations(int count);
  /// Submits r = f - A u (after exchanging u) and the halo exchange of r.
  void submit_residual();
  /// Submits tasks adding (f - A u)^2 over this rank's unknowns into reduction handle `h`
  /// (of ExactSum), after exchanging u.
  void submit_residual_squares(Handle h);
  /// Submits u = 0 on every block's interior (a coarse level's initial correction). Ghosts
  /// beyond the domain keep 0, the others are refreshed before they are read.
  void submit_zero_u();
  /// Tells the level that tasks submitted by someone else changed u's interior.
  void u_changed() { u_ghosts_current_ = false; }

 private:
  void submit_half_sweeps(Colour colour);

  Session& session_;
  std::unique_ptr<UniformMesh> mesh_;
  Stencil stencil_;
  HaloPlan plan_;
  HaloExchange halo_;
  BlockField u_;
  BlockField f_;
  std::unique_ptr<BlockField> r_;
  bool u_ghosts_current_ = false;
};

}  // namespace tessera::poisson
