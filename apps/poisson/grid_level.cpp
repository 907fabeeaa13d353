#include "grid_level.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tessera/runtime/runtime.hpp"

namespace tessera::poisson {
GridLevel::GridLevel(Session& session, LevelHierarchy& hierarchy, int level, BlockField& u,
                     BlockField& f, BlockField* r, int dimensions)
    : session_(session),
      mesh_(&hierarchy.mesh(level)),
      stencil_(make_stencil(mesh_->cells(), dimensions)),
      halo_(hierarchy.halo(level)),
      // One copy task per block fills its 8 (26) local ghost regions, most of them single
      // edge or corner cells.
      full_plan_(*mesh_, HaloOptions{.shape = HaloShape::full, .copy_per_block = true}),
      full_halo_(full_plan_, 1, session.comm(), session.exec(),
                 fmt::format("halo-full.L{}", level)),
      u_(u),
      f_(f),
      r_(r) {}

Priority GridLevel::priority(LocalBlockIndex b) const {
  return mesh_->local_block(b).is_skeleton(HaloShape::faces) ? session_.exec().skeleton_priority()
                                                             : Priority::normal;
}

void GridLevel::exchange_u() {
  if (u_ghosts_current_) return;
  halo_.exchange(u_);
  u_ghosts_current_ = true;
}

void GridLevel::exchange_u_full() {
  full_halo_.exchange(u_);
  u_ghosts_current_ = true;
}

void GridLevel::submit_iterations(int count) {
  for (int it = 0; it < count; ++it) {
    exchange_u();
    submit_half_sweeps(Colour::red);
    exchange_u();
    submit_half_sweeps(Colour::black);
  }
}

void GridLevel::submit_half_sweeps(Colour colour) {
  Exec& exec = session_.exec();
  exec.begin_phase("smooth");
  for (LocalBlockIndex b = 0; b < mesh_->local_block_count(); ++b) {
    session_.runtime().submit(
        colour == Colour::red ? "red" : "black",
        {read(f_.interior(b)), read(u_.ghosts(b)), readwrite(u_.interior(b))},
        [layout = &u_.layout(), stencil = &stencil_, origin = origin(b), colour, f = f_.data(b),
         u = u_.data(b)] { half_sweep(*layout, *stencil, origin, colour, f, u); },
        TaskAttributes(priority(b), {mesh_->local_block(b).id}));
  }
  exec.end_phase();
  u_ghosts_current_ = false;
}

void GridLevel::submit_residual() {
  exchange_u();
  Exec& exec = session_.exec();
  exec.begin_phase("residual");
  BlockField& r = *r_;
  for (LocalBlockIndex b = 0; b < mesh_->local_block_count(); ++b) {
    session_.runtime().submit(
        "residual",
        {read(f_.interior(b)), read(u_.ghosts(b)), read(u_.interior(b)), write(r.interior(b))},
        [layout = &u_.layout(), stencil = &stencil_, origin = origin(b), f = f_.data(b),
         u = u_.data(b),
         out = r.data(b)] { compute_residual(*layout, *stencil, origin, f, u, out); },
        TaskAttributes(priority(b), {mesh_->local_block(b).id}));
  }
  exec.end_phase();
  full_halo_.exchange(r);
}

void GridLevel::submit_residual_squares(Handle h) {
  exchange_u();
  Exec& exec = session_.exec();
  exec.begin_phase("check");
  for (LocalBlockIndex b = 0; b < mesh_->local_block_count(); ++b) {
    session_.runtime().submit(
        "residual-norm",
        {read(f_.interior(b)), read(u_.ghosts(b)), read(u_.interior(b)), reduce(h)},
        [layout = &u_.layout(), stencil = &stencil_, origin = origin(b), f = f_.data(b),
         u = u_.data(b), h](TaskContext& ctx) {
          add_residual_squares(*layout, *stencil, origin, f, u, ctx.reduction_slot<ExactSum>(h));
        });
  }
  exec.end_phase();
}

void GridLevel::submit_zero_u() {
  Exec& exec = session_.exec();
  exec.begin_phase("zero");
  for (LocalBlockIndex b = 0; b < mesh_->local_block_count(); ++b) {
    session_.runtime().submit("zero", {write(u_.interior(b))},
                              [layout = &u_.layout(), u = u_.data(b)] {
                                const Int3 n = layout->cells();
                                for (int k = 0; k < n.z; ++k) {
                                  for (int j = 0; j < n.y; ++j) {
                                    std::fill_n(u + layout->index(0, 0, j, k), n.x, 0.0);
                                  }
                                }
                              });
  }
  exec.end_phase();
  u_ghosts_current_ = false;
}

}  // namespace tessera::poisson
