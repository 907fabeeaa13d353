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

/// One stage on a block. The block's slot holds groups of kVars variables; `src_group`
/// (with filled face ghosts) gives the fluxes, and with
///   du = ((0 - t[0]) - t[1]) - t[2],  t[a] = dt_dx[a] * (F[i + 1/2] - F[i - 1/2]) along a,
/// dst = base + du, or with `average` (RK2's second stage) dst = (base + (src + du)) / 2,
/// for the interior cells (dst may be base). With `face_flux`, the fluxes of the block's
/// six faces are stored there too (FluxRegister layout of `flux_layout`, conserved
/// variables), for the flux correction at coarse-fine faces. The driver runs a stage as one
/// task (hydro_stage) or as a task per piece (recover_primitives, axis_fluxes per axis,
/// apply_terms); both give the same bits.
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

/// The whole stage. Returns the first interior cell of src with a non-positive density or
/// pressure, in which case dst is left unchanged.
CellFault hydro_stage(const StageArgs& args);

/// Primitive recovery: rho, vx, vy, vz, p of group `group` into `w` (primitive_layout) for
/// the interior and the face ghosts (edge and corner ghosts are never read and stay unset).
/// Returns the first interior cell with a non-positive density or pressure (w is then only
/// partly written).
CellFault recover_primitives(const tessera::BlockShape& shape, const double* block, int group,
                             double gamma, double* w);
/// Layout of the primitives `w`: the block's cells and ghosts, kVars variables.
tessera::BlockLayout primitive_layout(const tessera::BlockShape& shape);

/// Reconstruction and Riemann fluxes along `axis` from the primitives `w`: term[v * cells +
/// c] = t[axis] (c: the interior cell's index, i fastest), or with `accumulate` term[...] -=
/// t[axis] (the whole stage's running sum). With `faces`, the fluxes through the block's two
/// faces normal to `axis` go to faces[flux_layout->index(face, v, u, w) - face_offset].
void axis_fluxes(const StageArgs& args, int axis, const double* w, double* term, bool accumulate,
                 double* faces, std::size_t face_offset);

/// The update from the terms t[a] of axes 0..dim-1 (each kVars x interior cells).
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
