#pragma once
// Directions from a block to its neighbours: the 6 faces, 12 edges and 8 corners.

#include <span>

#include "tessera/mesh/box.hpp"

namespace tessera {

/// An offset (dx, dy, dz) in {-1, 0, 1}^3 from a block to a neighbouring block.
struct Direction {
  /// Number of offsets including (0, 0, 0); index() is in [0, kCount).
  static constexpr int kCount = 27;
  Int3 offset;

  /// (dx+1) + 3 (dy+1) + 9 (dz+1); 13 is the block itself.
  constexpr int index() const { return (offset.x + 1) + 3 * (offset.y + 1) + 9 * (offset.z + 1); }
  static constexpr Direction from_index(int index) {
    return {{index % 3 - 1, (index / 3) % 3 - 1, index / 9 - 1}};
  }
  constexpr Direction opposite() const { return {{-offset.x, -offset.y, -offset.z}}; }
  /// 1 for a face, 2 for an edge, 3 for a corner, 0 for the block itself.
  constexpr int order() const { return (offset.x != 0) + (offset.y != 0) + (offset.z != 0); }
  friend bool operator==(const Direction&, const Direction&) = default;
};

/// Which ghost cells a halo exchange fills: `faces` (what a 7-point stencil reads) or
/// `full` (faces, edges and corners: what a 27-point stencil reads).
enum class HaloShape { faces, full };

/// The directions a halo of `shape` fills, in exchange order: faces as -x, +x, -y, +y, -z,
/// +z; full as all 26 offsets in index order.
std::span<const Direction> halo_directions(HaloShape shape);

/// Short text for a direction, such as "+x", "-y+z" or "+x-y-z".
const char* direction_name(Direction d);

}  // namespace tessera
