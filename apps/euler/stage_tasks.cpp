// A VL2 stage as tasks: per block either one task (fused) or primitive recovery, one flux
// task per axis and the update (split), ordered by their accesses to the block's data; the
// flux correction at coarse-fine faces follows. The Driver's other members are in driver.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "driver.hpp"

namespace euler {

void Driver::submit_stage(int stage) {
  tessera::Exec& exec = session_.exec();
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = *mesh_;
  const int src = stage == 0 ? 0 : 1;
  exec.begin_phase("halo");
  mesh.exchange(src);
  exec.end_phase();
  exec.begin_phase("hydro");
  auto& faults = stage_faults_[stage];
  std::vector<tessera::Access> acc;
  const double factor = stage == 0 ? 0.5 : 1.0;
  const double* step = &step_;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    StageArgs args;
    args.shape = &mesh.shape();
    args.dim = options_.dim;
    args.block = mesh.data(b);
    args.src_group = src;
    args.base_group = 0;
    args.dst_group = stage == 0 ? 1 : 0;
    const int level = mesh.place(b).level;
    std::array<double, 3> dx{};
    for (int a = 0; a < 3; ++a) dx[a] = std::ldexp(geo_.dx[a], -level);
    // VL2 as Athena++ runs it: first-order fluxes in the predictor.
    args.reconstruct = stage == 0 ? Reconstruct::pcm : options_.reconstruct;
    args.riemann = options_.riemann;
    args.gamma = options_.gamma;
    tessera::FluxCorrection* flux = mesh.flux_correction();
    if (flux != nullptr && flux->fluxes(b) != nullptr) {
      args.face_flux = flux->fluxes(b);
      args.flux_layout = &flux->layout();
    }
    const tessera::Priority priority =
        mesh.is_skeleton(b) ? exec.skeleton_priority() : tessera::Priority::normal;
    if (options_.stage_tasks == StageTasks::split) {
      submit_split_stage(b, stage, args, dx, priority);
      continue;
    }
    acc.clear();
    acc.push_back(tessera::read(mesh.interior(b, src)));
    for (int a = 0; a < options_.dim; ++a) acc.push_back(tessera::read(mesh.ghosts(b, src, a)));
    if (stage == 0) {
      acc.push_back(tessera::write(mesh.interior(b, 1)));
    } else {
      acc.push_back(tessera::readwrite(mesh.interior(b, 0)));
    }
    if (args.face_flux != nullptr) acc.push_back(tessera::write(flux->fluxes_handle(b)));
    CellFault* fault = &faults[static_cast<std::size_t>(b)];
    runtime.submit(
        stage == 0 ? "euler_predict" : "euler_correct", std::span<const tessera::Access>(acc),
        [args, fault, step, factor, dx] {
          StageArgs a = args;
          for (int axis = 0; axis < 3; ++axis) a.dt_dx[axis] = factor * *step / dx[axis];
          *fault = hydro_stage(a);
        },
        priority);
  }
  // Coarse blocks next to finer ones take the fine fluxes on those faces.
  if (mesh.flux_correction() != nullptr)
    mesh.flux_correction()->submit(stage == 0 ? 1 : 0, stage, step, factor, geo_.dx, exec);
  exec.end_phase();
}

void Driver::submit_split_stage(std::int32_t b, int stage, const StageArgs& args,
                                const std::array<double, 3>& dx, tessera::Priority priority) {
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = *mesh_;
  const auto i = static_cast<std::size_t>(b);
  StageBuffers& buf = stage_buffers_[i];
  const tessera::Handle w_handle = w_handles_[i];
  const std::array<tessera::Handle, 3>& term_handles = term_handles_[i];
  CellFault* fault = &stage_faults_[stage][i];
  const int dim = options_.dim;
  const double factor = stage == 0 ? 0.5 : 1.0;
  const double* step = &step_;
  double* w = buf.w.data();
  std::vector<tessera::Access> acc;
  acc.push_back(tessera::read(mesh.interior(b, args.src_group)));
  for (int a = 0; a < dim; ++a) acc.push_back(tessera::read(mesh.ghosts(b, args.src_group, a)));
  acc.push_back(tessera::write(w_handle));
  runtime.submit(
      "euler_primitives", std::span<const tessera::Access>(acc),
      [args, w, fault] {
        *fault = recover_primitives(*args.shape, args.block, args.src_group, args.gamma, w);
      },
      priority);
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
    const double dx_a = dx[axis];
    runtime.submit(
        kFluxNames[axis], {tessera::read(w_handle), tessera::write(term_handles[axis])},
        [ax, fault, step, factor, dx_a] {
          if (fault->bad) return;  // the stage stops; the driver names the cell
          AxisArgs a = ax;
          a.dt_dx = factor * *step / dx_a;
          axis_fluxes(a);
        },
        priority);
  }
  acc.clear();
  for (int a = 0; a < dim; ++a)
    acc.push_back(tessera::read(term_handles[static_cast<std::size_t>(a)]));
  if (stage == 0) {
    acc.push_back(tessera::read(mesh.interior(b, args.base_group)));
    acc.push_back(tessera::write(mesh.interior(b, args.dst_group)));
  } else {
    acc.push_back(tessera::readwrite(mesh.interior(b, args.dst_group)));
  }
  if (args.face_flux != nullptr)
    acc.push_back(tessera::write(mesh.flux_correction()->fluxes_handle(b)));
  runtime.submit(
      stage == 0 ? "euler_predict" : "euler_correct", std::span<const tessera::Access>(acc),
      [args, fault, terms, faces, dim] {
        if (fault->bad) return;
        apply_terms(*args.shape, dim, args.block, args.base_group, args.dst_group, terms);
        if (args.face_flux == nullptr) return;
        // Each axis's two faces are consecutive in the register.
        const tessera::FluxRegister& layout = *args.flux_layout;
        for (int a = 0; a < dim; ++a) {
          const auto axis = static_cast<std::size_t>(a);
          std::copy(faces[axis],
                    faces[axis] + (layout.offset[2 * axis + 2] - layout.offset[2 * axis]),
                    args.face_flux + layout.offset[2 * axis]);
        }
      },
      priority);
}

}  // namespace euler
