#pragma once
// What the euler app writes and measures at the end of a run: line-outs, the Sedov radial
// profile, VTK cell data; and the walk over local cells they share. All functions are
// collective and need every task done.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"
#include "problems.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/session.hpp"

namespace euler {

/// Calls f(level, g, u, sv) for every interior cell of every local block, i outermost and k
/// innermost (sums over the cells keep their bits in that order): g is the cell's
/// global index among the cells of its block's level, u points at its variable 0 of group 0
/// (variable v at u[v * sv]).
template <class F>
void for_each_cell(tessera::AmrMesh& mesh, F&& f) {
  const tessera::BlockShape& s = mesh.shape();
  const tessera::BlockLayout l = s.layout();
  const auto sv = static_cast<std::size_t>(l.stride_var());
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    const tessera::BlockPlace& place = mesh.place(b);
    std::array<std::int64_t, 3> base{};
    // origin / length counts level-L blocks from the domain's lower corner.
    for (int a = 0; a < 3; ++a) base[a] = place.origin[a] / place.length() * s.cells[a];
    const double* data = mesh.data(b);
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k)
          f(place.level, std::array<std::int64_t, 3>{base[0] + i, base[1] + j, base[2] + k},
            data + l.index(0, i, j, k), sv);
  }
}

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
