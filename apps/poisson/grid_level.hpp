#pragma once
// One grid of the poisson solvers: a level of a LevelHierarchy (its block mesh and halo
// exchange) with the unknown u, the right-hand side f and (for multigrid) the residual r on
// it, and the tasks that smooth and measure them.

#include "red_black_kernels.hpp"
#include "sine_problem.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/level_hierarchy.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/session.hpp"

namespace tessera::poisson {

/// Level `level` of `hierarchy` (ghost width 1, local ghosts filled by copies, z flat in
/// 2-D). Ghosts facing other blocks are filled by halo exchanges (local copies and
/// messages), so a block's tasks touch only that block: the red half-sweeps of all blocks
/// run in parallel. The hierarchy and fields must outlive it. Main thread only; tasks it
/// submits may run on any thread.
class GridLevel {
 public:
  /// `r` may be null (no residual field: submit_residual is then unavailable).
  GridLevel(Session& session, LevelHierarchy& hierarchy, int level, BlockField& u, BlockField& f,
            BlockField* r, int dimensions);

  const UniformMesh& mesh() const { return *mesh_; }
  Int3 cells() const { return mesh_->cells(); }
  int dimensions() const { return stencil_.dimensions; }
  const Stencil& stencil() const { return stencil_; }
  BlockField& u() { return u_; }
  BlockField& f() { return f_; }
  /// The residual field; only for levels constructed with one.
  BlockField& r() { return *r_; }
  /// Global vertex of block b's cell (0, 0, 0).
  Int3 origin(LocalBlockIndex b) const { return mesh_->cell_origin(mesh_->local_block(b)); }
  /// Priority of block b's tasks: skeleton blocks first under dataflow.
  Priority priority(LocalBlockIndex b) const;

  /// Submits the face halo exchange of u (what the 5/7-point stencil reads) unless its
  /// ghosts are current (no sweep since the last).
  void exchange_u();
  /// Submits the full halo exchange of u (faces, edges and corners: what a prolongation
  /// from this level reads).
  void exchange_u_full();
  /// Submits `count` red-black iterations, each: exchange u, red half-sweeps, exchange u,
  /// black half-sweeps.
  void submit_iterations(int count);
  /// Submits r = f - A u (after exchanging u) and the full halo exchange of r (a
  /// full-weighting restriction reads edge and corner ghosts).
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
  const UniformMesh* mesh_;
  Stencil stencil_;
  HaloExchange& halo_;  // faces
  HaloPlan full_plan_;
  HaloExchange full_halo_;
  BlockField& u_;
  BlockField& f_;
  BlockField* r_;
  bool u_ghosts_current_ = false;
};

}  // namespace tessera::poisson
