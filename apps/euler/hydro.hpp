#pragma once
// The finite-volume kernels of the euler app, per block: one VL2 or RK2 stage (primitive
// recovery, reconstruction, Riemann fluxes per direction, conservative update), whole or
// piece by piece, and the time-step / positivity scan. Pure functions of a block's data: a block
// gives the same bits wherever it lives and whichever thread runs it.

#include <array>
#include <cstddef>
#include <cstdint>

#include "options.hpp"
#include "tessera/amr/block_store.hpp"
#include "tessera/amr/flux_correction.hpp"

namespace euler {

/// A cell where density or pressure is not positive (or not finite).
struct CellFault {
  bool bad = false;
  std::array<int, 3> cell{};  ///< interior index, 0-based, of the first bad cell
  double rho = 0, p = 0;
};

/// The pieces of one stage on a block, which the driver runs as one task (fused) or as
/// a task each (split): primitive recovery, fluxes along each axis, the update
///   dst = base + (((0 - term_x) - term_y) - term_z),  term_a = dt_dx[a] * (F[i + 1/2] - F[i -
///   1/2])
/// for the interior cells, in this order in both forms, so both give the same bits.

/// Primitive recovery: rho, vx, vy, vz, p of variable group `group` into `w` (kVars
/// variables, primitive_layout) for the interior and the face ghosts (edge and corner
/// ghosts are never read and stay unset). Returns the first interior cell with a
/// non-positive density or pressure (w is then only partly written).
CellFault recover_primitives(const tessera::BlockShape& shape, const double* block, int group,
                             double gamma, double* w);

/// Layout of the primitives `w`: the block's cells and ghosts, kVars variables.
tessera::BlockLayout primitive_layout(const tessera::BlockShape& shape);

/// Values per variable of a stage term: the block's interior cells, index term_index
/// (i fastest, as the block's layout).
inline std::size_t term_index(const tessera::BlockShape& s, int i, int j, int k) {
  return (static_cast<std::size_t>(k) * static_cast<std::size_t>(s.cells[1]) +
          static_cast<std::size_t>(j)) *
             static_cast<std::size_t>(s.cells[0]) +
         static_cast<std::size_t>(i);
}

/// Reconstruction and Riemann fluxes along `axis` from the primitives `w`. With
/// `accumulate`, term[v * cells + c] -= dt_dx * dF (the fused stage's running sum); else
/// term[...] = dt_dx * dF. With `face_flux`, the fluxes through the block's two faces
/// normal to `axis` go to face_flux[flux_layout->index(face, v, u, w) - face_offset].
struct AxisArgs {
  const tessera::BlockShape* shape = nullptr;
  int axis = 0;
  const double* w = nullptr;
  double dt_dx = 0;
  Reconstruct reconstruct = Reconstruct::plm;
  Riemann riemann = Riemann::hllc;
  double gamma = 1.4;
  double* term = nullptr;
  bool accumulate = false;
  double* face_flux = nullptr;
  const tessera::FluxRegister* flux_layout = nullptr;
  std::size_t face_offset = 0;
};
void axis_fluxes(const AxisArgs& args);

/// One whole stage on a block (the fused form). The block's slot holds groups of kVars
/// variables; `src_group` (with filled face ghosts) gives the fluxes, and with
///   du = -sum over axes of dt_dx[a] * (F[i + 1/2] - F[i - 1/2])  (summed from axis 0)
/// dst = base + du, or with `average` (RK2's second stage) dst = (base + (src + du)) / 2,
/// for the interior cells (dst may be base). Returns the first interior cell of src with a
/// non-positive density or pressure, in which case dst is left unchanged. With `face_flux`,
/// the fluxes of the block's six faces are stored there too (FluxRegister layout of
/// `flux_layout`, conserved variables), for the flux correction at coarse-fine faces.
struct StageArgs {
  const tessera::BlockShape* shape = nullptr;
  int dim = 3;
  double* block = nullptr;
  int src_group = 0, base_group = 0, dst_group = 0;
  bool average = false;
  std::array<double, 3> dt_dx{};
  Reconstruct reconstruct = Reconstruct::plm;
  Riemann riemann = Riemann::hllc;
  double gamma = 1.4;
  double* face_flux = nullptr;
  const tessera::FluxRegister* flux_layout = nullptr;
};
CellFault hydro_stage(const StageArgs& args);

/// The update of `args` from the terms t[a] = dt_dx[a] dF of axes 0..dim-1 (split form),
/// with du = ((0 - t[0]) - t[1]) - t[2]: the fused stage's bits.
void apply_terms(const StageArgs& args, const std::array<const double*, 3>& terms);

/// Scans the interior of group `group`: the largest stable time step
/// min over cells and axes of dx[a] / (|v_a| + c_s) (without the CFL factor), and the first
/// bad cell if any.
struct ScanResult {
  double dt = 0;
  CellFault fault;
};
ScanResult scan_block(const tessera::BlockShape& shape, int dim, const double* block, int group,
                      const std::array<double, 3>& dx, double gamma);

}  // namespace euler
