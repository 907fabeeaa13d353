// A VL2 stage of one block as tasks: one task (fused) or primitive recovery, one flux task
// per axis and the update (split), ordered by their accesses to the block's data. The
// driver exchanges the ghosts before and corrects the fluxes at coarse-fine faces after.
#include <algorithm>
#include <array>
#include <vector>

#include "solver.hpp"

namespace euler {

void Solver::submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) {
  tessera::AmrMesh& mesh = driver.mesh();
  const int stage = ctx.stage;
  const std::int32_t b = ctx.block.index;
  StageArgs args;
  args.shape = ctx.block.shape;
  args.dim = options_.dim;
  args.block = ctx.block.data;
  args.src_group = stage == 0 ? 0 : 1;
  args.base_group = 0;
  args.dst_group = stage == 0 ? 1 : 0;
  const bool vl2 = options_.integrator == Integrator::vl2;
  // VL2 as Athena++ runs it: first-order fluxes in the predictor, over half the step. RK2:
  // U* = U + dt L(U), then U = (U + (U* + dt L(U*))) / 2.
  args.reconstruct = vl2 && stage == 0 ? Reconstruct::pcm : options_.reconstruct;
  args.average = !vl2 && stage == 1;
  const double factor = vl2 && stage == 0 ? 0.5 : 1.0;
  args.riemann = options_.riemann;
  args.gamma = options_.gamma;
  args.face_flux = ctx.flux;
  args.flux_layout = ctx.flux_layout;
  if (options_.stage_tasks == StageTasks::split) {
    submit_split_stage(driver, ctx, args, factor);
    return;
  }
  std::vector<tessera::Access> acc;
  acc.push_back(tessera::read(mesh.interior(b, args.src_group)));
  for (int a = 0; a < options_.dim; ++a)
    acc.push_back(tessera::read(mesh.ghosts(b, args.src_group, a)));
  if (stage == 0) {
    acc.push_back(tessera::write(mesh.interior(b, 1)));
  } else {
    acc.push_back(tessera::readwrite(mesh.interior(b, 0)));
  }
  if (args.face_flux != nullptr) acc.push_back(tessera::write(ctx.flux_handle));
  CellFault* fault = &stage_faults_[stage][static_cast<std::size_t>(b)];
  session_.runtime().submit(
      stage == 0 ? "euler_predict" : "euler_correct", std::span<const tessera::Access>(acc),
      [args, fault, step = ctx.step, factor, dx = ctx.block.dx] {
        StageArgs a = args;
        for (int axis = 0; axis < 3; ++axis) a.dt_dx[axis] = factor * *step / dx[axis];
        *fault = hydro_stage(a);
      },
      ctx.priority);
}

void Solver::submit_split_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx,
                                const StageArgs& args, double factor) {
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = driver.mesh();
  const std::int32_t b = ctx.block.index;
  StageBuffers& buf = stage_buffers_[static_cast<std::size_t>(b)];
  CellFault* fault = &stage_faults_[ctx.stage][static_cast<std::size_t>(b)];
  const int dim = options_.dim;
  const double* step = ctx.step;
  double* w = buf.w.data();
  std::vector<tessera::Access> acc;
  acc.push_back(tessera::read(mesh.interior(b, args.src_group)));
  for (int a = 0; a < dim; ++a) acc.push_back(tessera::read(mesh.ghosts(b, args.src_group, a)));
  acc.push_back(tessera::write(buf.w_handle));
  runtime.submit(
      "euler_primitives", std::span<const tessera::Access>(acc),
      [args, w, fault] {
        *fault = recover_primitives(*args.shape, args.block, args.src_group, args.gamma, w);
      },
      ctx.priority);
  static constexpr const char* kFluxNames[3] = {"euler_flux_x", "euler_flux_y", "euler_flux_z"};
  std::array<const double*, 3> terms{};
  std::array<const double*, 3> faces{};
  for (int a = 0; a < dim; ++a) {
    const auto axis = static_cast<std::size_t>(a);
    AxisArgs ax;
    ax.shape = args.shape;
    ax.axis = a;
    ax.w = w;
    ax.reconstruct = args.reconstruct;
    ax.riemann = args.riemann;
    ax.gamma = args.gamma;
    ax.term = buf.term[axis].data();
    terms[axis] = ax.term;
    if (args.face_flux != nullptr) {
      ax.face_flux = buf.faces[axis].data();
      ax.flux_layout = args.flux_layout;
      ax.face_offset = args.flux_layout->offset[2 * axis];
      faces[axis] = ax.face_flux;
    }
    const double dx_a = ctx.block.dx[axis];
    runtime.submit(
        kFluxNames[axis], {tessera::read(buf.w_handle), tessera::write(buf.term_handles[axis])},
        [ax, fault, step, factor, dx_a] {
          if (fault->bad) return;  // the stage stops; the driver names the cell
          AxisArgs a = ax;
          a.dt_dx = factor * *step / dx_a;
          axis_fluxes(a);
        },
        ctx.priority);
  }
  acc.clear();
  for (int a = 0; a < dim; ++a)
    acc.push_back(tessera::read(buf.term_handles[static_cast<std::size_t>(a)]));
  if (ctx.stage == 0) {
    acc.push_back(tessera::read(mesh.interior(b, args.base_group)));
    acc.push_back(tessera::write(mesh.interior(b, args.dst_group)));
  } else {
    if (args.average) acc.push_back(tessera::read(mesh.interior(b, args.src_group)));
    acc.push_back(tessera::readwrite(mesh.interior(b, args.dst_group)));
  }
  if (args.face_flux != nullptr) acc.push_back(tessera::write(ctx.flux_handle));
  runtime.submit(
      ctx.stage == 0 ? "euler_predict" : "euler_correct", std::span<const tessera::Access>(acc),
      [args, fault, terms, faces, dim] {
        if (fault->bad) return;
        apply_terms(args, terms);
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
