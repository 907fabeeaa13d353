#include "tessera/mesh/wavefront_order.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

namespace tessera {

WavefrontOrder::WavefrontOrder(const UniformMesh& mesh, int depth) : depth_(depth) {
  if (depth < 1) throw std::invalid_argument("WavefrontOrder: depth must be at least 1");
  std::array<int, 3> lo{std::numeric_limits<int>::max(), std::numeric_limits<int>::max(),
                        std::numeric_limits<int>::max()};
  std::array<int, 3> hi{std::numeric_limits<int>::min(), std::numeric_limits<int>::min(),
                        std::numeric_limits<int>::min()};
  for (const MeshBlock& b : mesh.local_blocks()) {
    const std::array<int, 3> c{b.coord.x, b.coord.y, b.coord.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
  if (mesh.local_block_count() > 0) {
    // The longest axis has the fewest blocks per layer: the smallest working set. Ties go
    // to the later axis (z before y before x), the one whose layers are contiguous in the
    // curve order of most meshes.
    for (int a = 2; a >= 0; --a)
      if (hi[a] - lo[a] > hi[axis_] - lo[axis_]) axis_ = a;
    layers_ = hi[axis_] - lo[axis_] + 1;
  }
  band_span_ = static_cast<std::int64_t>(layers_) + 2 * static_cast<std::int64_t>(depth_);
  layer_.reserve(mesh.local_blocks().size());
  for (const MeshBlock& b : mesh.local_blocks()) {
    const std::array<int, 3> c{b.coord.x, b.coord.y, b.coord.z};
    layer_.push_back(c[axis_] - lo[axis_]);
  }
}

}  // namespace tessera
