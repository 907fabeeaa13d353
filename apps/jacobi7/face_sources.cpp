#include "face_sources.hpp"

#include <algorithm>
#include <cstdint>

#include "tessera/mesh/direction.hpp"

namespace tessera::jacobi7 {

FaceSources face_sources(const BlockField& field, LocalBlockIndex b, bool in_place) {
  const BlockLayout& layout = field.layout();
  const MeshBlock& block = field.mesh().local_block(b);
  const Int3 n = layout.cells();
  const auto faces = halo_directions(HaloShape::faces);
  FaceSources sources;
  for (int a = 0; a < 3; ++a)
    if (field.mesh().is_flat(a)) sources.flat_axes |= static_cast<std::uint8_t>(1 << a);
  for (int f = 0; f < 6; ++f) {
    const Int3 o = faces[f].offset;
    const LocalBlockIndex neighbour = block.neighbour_local[faces[f].index()];
    if (!in_place || neighbour == kNotLocal) {
      sources.data[f] = field.data(b);
      continue;
    }
    // Ghost cell g beyond face f is the neighbour's cell g - n along the face's axis.
    sources.data[f] = field.data(neighbour);
    sources.shift[f] = -(o.x * n.x + o.y * n.y * layout.stride_y() + o.z * n.z * layout.stride_z());
  }
  return sources;
}

FaceSources face_sources(const BlockField& field, LocalBlockIndex b, bool in_place, double* columns,
                         const double* boundary) {
  FaceSources sources = face_sources(field, b, in_place);
  const MeshBlock& block = field.mesh().local_block(b);
  const auto faces = halo_directions(HaloShape::faces);
  if (!field.stores_ghosts()) {
    for (int f = 0; f < 6; ++f) {
      if (block.neighbour[faces[f].index()] != kNoBlock || (sources.flat_axes >> (f / 2)) & 1)
        continue;
      if (f < 2) {
        sources.x_column[f] = boundary;
      } else {
        sources.ghost_rows[f - 2] = boundary;
      }
    }
  }
  if (!in_place || !columns) return sources;
  const Int3 n = field.layout().cells();
  const std::ptrdiff_t plane = std::ptrdiff_t{n.y} * n.z;
  for (int side = 0; side < 2; ++side) {  // faces 0 (-x) and 1 (+x)
    const LocalBlockIndex neighbour = block.neighbour_local[faces[side].index()];
    if (neighbour == kNotLocal) continue;
    // Beyond -x is the west neighbour's last column; beyond +x the east one's first.
    sources.x_column[side] = columns + (2 * std::ptrdiff_t{neighbour} + (1 - side)) * plane;
    sources.own_column[side] = columns + (2 * std::ptrdiff_t{b} + side) * plane;
  }
  return sources;
}

std::size_t boundary_values(const BlockField& field) {
  const Int3 n = field.layout().cells();
  return static_cast<std::size_t>(
      std::max({std::int64_t{n.y} * n.z, std::int64_t{n.x} * n.z, std::int64_t{n.x} * n.y}));
}

}  // namespace tessera::jacobi7
