// A stage of one block as tasks: one task (fused) or primitive recovery, one flux task per
// axis and the update (split), ordered by their accesses to the block's data. The driver
// exchanges the ghosts before and corrects the fluxes at coarse-fine faces after.
#include <algorithm>
#include <array>
#include <vector>

#include "solver.hpp"

namespace euler {

void Solver::submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) {
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = driver.mesh();
  const int stage = ctx.stage, dim = options_.dim;
  const std::int32_t b = ctx.block.index;
  StageArgs args;
  args.shape = ctx.block.shape;
  args.dim = dim;
  args.block = ctx.block.data;
  args.src_group = stage == 0 ? 0 : 1;
  args.base_group = 0;
  args.dst_group = stage == 0 ? 1 : 0;
  const bool vl2 = options_.integrator == Integrator::vl2;
  // VL2 as Athena++ runs it: first-order fluxes in the predictor, over half the step. RK2:
  // U* = U + dt L(U), then U = (U + (U* + dt L(U*))) / 2.
  args.reconstruct = vl2 && stage == 0 ? Reconstruct::pcm : options_.reconstruct;
  args.average = !vl2 && stage == 1;
  args.riemann = options_.riemann;
  args.gamma = options_.gamma;
  args.face_flux = ctx.flux;
  args.flux_layout = ctx.flux_layout;
  // The step is known when the tasks run.
  const auto with_step = [factor = vl2 && stage == 0 ? 0.5 : 1.0, step = ctx.step,
                          dx = ctx.block.dx](StageArgs a) {
    for (int axis = 0; axis < 3; ++axis) a.dt_dx[axis] = factor * *step / dx[axis];
    return a;
  };
  CellFault* fault = &stage_faults_[stage][static_cast<std::size_t>(b)];
  const bool split = options_.stage_tasks == StageTasks::split;
  StageBuffers* buf = split ? &stage_buffers_[static_cast<std::size_t>(b)] : nullptr;
  // The fluxes read the source and its face ghosts; the update reads the terms (split) and
  // the groups it combines, and writes the destination and the face fluxes.
  // A cancelled cycle (zero step) leaves everything, the fault records too, untouched.
  const double* step = ctx.step;
  std::vector<tessera::Access> reads{tessera::read(mesh.interior(b, args.src_group)),
                                     tessera::read(ctx.step_handle)},
      update;
  for (int a = 0; a < dim; ++a) {
    reads.push_back(tessera::read(mesh.ghosts(b, args.src_group, a)));
    if (split) update.push_back(tessera::read(buf->term_handles[static_cast<std::size_t>(a)]));
  }
  if (split && (stage == 0 || args.average))
    update.push_back(tessera::read(mesh.interior(b, stage == 0 ? 0 : 1)));
  update.push_back(stage == 0 ? tessera::write(mesh.interior(b, 1))
                              : tessera::readwrite(mesh.interior(b, 0)));
  if (args.face_flux != nullptr) update.push_back(tessera::write(ctx.flux_handle));
  const char* name = stage == 0 ? "euler_predict" : "euler_correct";
  if (!split) {
    reads.insert(reads.end(), update.begin(), update.end());
    runtime.submit(
        name, std::span<const tessera::Access>(reads),
        [args, fault, with_step, step] {
          if (*step != 0) *fault = hydro_stage(with_step(args));
        },
        ctx.priority);
    return;
  }
  double* w = buf->w.data();
  reads.push_back(tessera::write(buf->w_handle));
  runtime.submit(
      "euler_primitives", std::span<const tessera::Access>(reads),
      [args, w, fault, step] {
        if (*step == 0) return;
        *fault = recover_primitives(*args.shape, args.block, args.src_group, args.gamma, w);
      },
      ctx.priority);
  static constexpr const char* kFluxNames[3] = {"euler_flux_x", "euler_flux_y", "euler_flux_z"};
  std::array<const double*, 3> terms{}, faces{};
  for (std::size_t a = 0; a < static_cast<std::size_t>(dim); ++a) {
    double* term = buf->term[a].data();
    double* face = args.face_flux != nullptr ? buf->faces[a].data() : nullptr;
    const std::size_t offset = args.face_flux != nullptr ? args.flux_layout->offset[2 * a] : 0;
    terms[a] = term;
    faces[a] = face;
    runtime.submit(
        kFluxNames[a], {tessera::read(buf->w_handle), tessera::write(buf->term_handles[a])},
        [args, a, w, term, face, offset, fault, with_step, step] {
          if (fault->bad || *step == 0) return;  // the stage stops; the driver names the cell
          axis_fluxes(with_step(args), static_cast<int>(a), w, term, false, face, offset);
        },
        ctx.priority);
  }
  runtime.submit(
      name, std::span<const tessera::Access>(update),
      [args, fault, terms, faces, dim, with_step, step] {
        if (fault->bad || *step == 0) return;
        apply_terms(with_step(args), terms);
        if (args.face_flux == nullptr) return;
        // Each axis's two faces are consecutive in the register.
        const tessera::FluxRegister& layout = *args.flux_layout;
        for (std::size_t axis = 0; axis < static_cast<std::size_t>(dim); ++axis)
          std::copy(faces[axis],
                    faces[axis] + (layout.offset[2 * axis + 2] - layout.offset[2 * axis]),
                    args.face_flux + layout.offset[2 * axis]);
      },
      ctx.priority);
}

}  // namespace euler
