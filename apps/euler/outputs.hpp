#pragma once
// What the euler app writes besides the driver's plot files: the cell quantities of
// line-outs (rho, v, p) and the Sedov radial profile. Collective; every task must be done.

#include <string>
#include <vector>

#include "options.hpp"
#include "problems.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/driver/cell_output.hpp"
#include "tessera/session.hpp"

namespace euler {

/// rho, v (vector) and p from a cell's conserved variables.
std::vector<tessera::CellQuantity> primitive_quantities(double gamma);

/// Radially binned volume-weighted means about the domain centre (bins one level-0 cell
/// wide).
struct RadialProfile {
  std::vector<double> r, rho, vr, p;
};
RadialProfile radial_profile(tessera::Session& session, tessera::AmrMesh& mesh, const Options& o,
                             const Geometry& geo);
/// CSV `r,rho,vr,p` (rank 0 writes, atomically).
void write_radial_profile(tessera::Session& session, const RadialProfile& profile,
                          const std::string& path);

}  // namespace euler
