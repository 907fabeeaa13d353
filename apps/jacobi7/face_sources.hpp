#pragma once
// Where a block's 7-point stencil finds the values beyond each of its faces: in its own
// ghost cells, or in place in the interior of the neighbouring block when that block is on
// this rank and the halo plan does not copy local faces. Reading in place saves the copy
// tasks (on one rank, 4 of every 5 tasks of an iteration) and the copies' writes; the sweep
// then reads those faces from memory rather than from ghosts a copy just cached, which
// costs the sweep about what the copies cost: the saving is mostly the tasks themselves.

#include <array>
#include <cstddef>
#include <cstdint>

#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera::jacobi7 {

/// For each face, in halo_directions(HaloShape::faces) order (-x, +x, -y, +y, -z, +z): the
/// block array and index shift at which that face's ghost values are read. The value for
/// ghost cell (i, j, k) beyond face f is data[f][layout.index(0, i, j, k) + shift[f]].
struct FaceSources {
  std::array<const double*, 6> data{};
  std::array<std::ptrdiff_t, 6> shift{};
  /// With column copies: where the values beyond the -x and +x faces are read instead, the
  /// x neighbour's copy of its facing column (row (j, k) at [k * ny + j]). A row then reads
  /// two doubles of compact arrays, not a whole cache line of each x neighbour.
  std::array<const double*, 2> x_column{};
  /// This block's own copies of its i = 0 and i = nx - 1 columns in this field, which a
  /// sweep writing the field keeps up to date for the x neighbours; null where no local
  /// neighbour reads it.
  std::array<double*, 2> own_column{};
  /// Fused packing (remote faces across y and z): where the rows beyond the -y, +y, -z and
  /// +z faces are read instead, in the received halo section (the row beyond y face at
  /// plane k at [k * nx], beyond z face at row j at [j * nx]); null where not fused.
  std::array<const double*, 4> ghost_rows{};
  /// This block's rows next to its -y, +y, -z, +z faces in the send section a sweep
  /// writing the field fills for the remote neighbour (layout as ghost_rows); null where
  /// not fused. x faces use own_column and x_column with the section's [k * ny + j].
  std::array<double*, 4> own_rows{};
  /// Bit a set: axis a is flat (a 2-D mesh's z): the row itself stands for both
  /// neighbours along it, with weight 0.
  std::uint8_t flat_axes = 0;
};

/// The face sources of block b of `field`: its own ghosts (shift 0) for faces on the domain
/// boundary or facing another rank, and for every face if `in_place` is false; the
/// neighbour's interior for faces towards a block of this rank if `in_place` is true.
FaceSources face_sources(const BlockField& field, LocalBlockIndex b, bool in_place);

/// face_sources with x faces read from column copies: `columns` holds, for every local
/// block c of `field`, its i = 0 column at [(2c) * ny * nz] and its i = nx - 1 column at
/// [(2c + 1) * ny * nz]. Only faces read in place towards local blocks use them. For a
/// field without ghost cells (GhostCells::none) faces on the domain boundary read
/// `boundary`: zeros (u = 0 there), 64-byte aligned, at least boundary_values(field)
/// doubles; faces towards other ranks are left for the caller to point at received
/// sections.
FaceSources face_sources(const BlockField& field, LocalBlockIndex b, bool in_place, double* columns,
                         const double* boundary);

/// Doubles of boundary values face_sources reads on the largest face of a block.
std::size_t boundary_values(const BlockField& field);

/// The inputs of the stencil for row (j, k) of a block: the row itself (cell (0, j, k)),
/// the rows beyond it along y and z, and the values beyond its two x ends.
struct RowNeighbours {
  const double* centre;
  const double* south;
  const double* north;
  const double* below;
  const double* above;
  double west;
  double east;
};

/// Row (j, k) of block array `u` with faces read from `faces`. A flat axis (no ghost
/// layer, as z of a 2-D mesh) gives the row itself as both neighbours; its weight is 0.
// Inline: called once per row of every sweep (a call per row was ~9 % of a 32^3 sweep).
inline RowNeighbours row_neighbours(const BlockLayout& layout, const double* u,
                                    const FaceSources& faces, int j, int k) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t row = layout.index(0, 0, j, k);
  const double* centre = u + row;
  // Rows beyond an axis' ends come from that face's source; inner rows from the block.
  const auto beyond = [&](int f, bool at_end, std::ptrdiff_t step) {
    if (!at_end) return centre + step;
    if (const double* rows = faces.ghost_rows[f - 2])
      return rows + std::ptrdiff_t{f < 4 ? k : j} * n.x;
    return faces.data[f] + (row + step + faces.shift[f]);
  };
  const std::ptrdiff_t dy = (faces.flat_axes & 2) != 0 ? 0 : layout.stride_y();
  const std::ptrdiff_t dz = (faces.flat_axes & 4) != 0 ? 0 : layout.stride_z();
  return {centre,
          beyond(2, dy != 0 && j == 0, -dy),
          beyond(3, dy != 0 && j == n.y - 1, dy),
          beyond(4, dz != 0 && k == 0, -dz),
          beyond(5, dz != 0 && k == n.z - 1, dz),
          faces.x_column[0] ? faces.x_column[0][std::ptrdiff_t{k} * n.y + j]
                            : faces.data[0][row - 1 + faces.shift[0]],
          faces.x_column[1] ? faces.x_column[1][std::ptrdiff_t{k} * n.y + j]
                            : faces.data[1][row + n.x + faces.shift[1]]};
}

}  // namespace tessera::jacobi7
