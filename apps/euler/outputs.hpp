#pragma once
// What the euler app writes and measures at the end of a run: line-outs, the Sedov radial
// profile, VTK cell data. All functions are
// collective and need every task done.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"
#include "problems.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/driver/cell_walk.hpp"
#include "tessera/session.hpp"

namespace euler {

/// Writes the CSV line-out along `axis` through the domain centre (rank 0 writes,
/// atomically): header `<axis>,rho,vx,vy,vz,p`, one row per cell in increasing coordinate
/// (the leaf cells the line crosses: the finest wherever the mesh is refined).
void write_lineout(tessera::Session& session, tessera::AmrMesh& mesh, const Options& o,
                   const Geometry& geo, int axis, const std::string& path);

/// Radially binned volume-weighted means about the domain centre (bins one level-0 cell
/// wide).
struct RadialProfile {
  std::vector<double> r, rho, vr, p;
};
RadialProfile radial_profile(tessera::Session& session, tessera::AmrMesh& mesh, const Options& o,
                             const Geometry& geo);
void write_radial_profile(tessera::Session& session, const RadialProfile& profile,
                          const std::string& path);

/// Legacy-VTK unstructured grid (ParaView opens it; rank 0 writes, atomically): every leaf
/// cell of every block at its true size and place (VTK_PIXEL in 2-D, VTK_VOXEL in 3-D), in
/// global block order, with cell data rho, v, p, level, rank and block (the block's global
/// index along the curve, from which tools/plot_euler.py draws block outlines).
void write_vtk(tessera::Session& session, tessera::AmrMesh& mesh, const Options& o,
               const Geometry& geo, double time, const std::string& path);

}  // namespace euler
