#pragma once
// The finite-volume kernels of the euler app, per block: one VL2 stage (primitive
// recovery, reconstruction, Riemann fluxes per direction, conservative update) and the
// time-step / positivity scan. Pure functions of a block's data: a block gives the same
// bits wherever it lives and whichever thread runs it.

#include <array>
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

/// One VL2 stage on a block. The block's slot holds groups of kVars variables; `src_group`
/// (with filled face ghosts) gives the fluxes, and
///   dst = base - sum over axes of dt_dx[a] * (F[i + 1/2] - F[i - 1/2])
/// for the interior cells (dst may be base). Returns the first interior cell of src with a
/// non-positive density or pressure, in which case dst is left unchanged. With `face_flux`,
/// the fluxes of the block's six faces are stored there too (FluxRegister layout of
/// `flux_layout`, conserved variables), for the flux correction at coarse-fine faces.
struct StageArgs {
  const tessera::BlockShape* shape = nullptr;
  int dim = 3;
  double* block = nullptr;
  int src_group = 0, base_group = 0, dst_group = 0;
  std::array<double, 3> dt_dx{};
  Reconstruct reconstruct = Reconstruct::plm;
  Riemann riemann = Riemann::hllc;
  double gamma = 1.4;
  double* face_flux = nullptr;
  const tessera::FluxRegister* flux_layout = nullptr;
};
CellFault hydro_stage(const StageArgs& args);

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
