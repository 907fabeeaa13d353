#pragma once
// Temporal blocking through the scheduler: order keys (TaskAttributes::order) that make
// the ready sweeps of a block stencil run as a wavefront, several iterations deep, so that
// a block's next iteration runs while it and its neighbours are still in cache.

#include <cstdint>
#include <vector>

#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera {

/// Keys for the sweep of local block b at iteration k of a nearest-neighbour stencil on a
/// UniformMesh. Iterations are taken in bands of `depth`; within a band, iteration k's
/// front runs two block layers behind iteration k-1's along the rank's longest axis of
/// blocks (the wave axis), so `depth` iterations sweep the rank's blocks together and each
/// block is read from memory about once per band instead of once per iteration. The keys
/// follow every face dependency (a neighbour at iteration k-1 always has a smaller key), so
/// each sweep is ready in its turn; periodic wrap-around along the wave axis is an
/// exception that costs locality, not correctness. The working set is about 2·depth + 1
/// layers of the rank's blocks across the wave axis: it pays when those fit in the
/// last-level cache. Keys only order; results do not depend on them.
class WavefrontOrder {
 public:
  /// Orders the local blocks of `mesh` in bands of `depth` >= 1 iterations.
  WavefrontOrder(const UniformMesh& mesh, int depth);

  int depth() const { return depth_; }
  /// The wave axis (0 = x, 1 = y, 2 = z): the one along which the local blocks extend most.
  int axis() const { return axis_; }
  /// The layers of local blocks across the wave axis.
  int layers() const { return layers_; }
  /// The order key of local block b's sweep at iteration k >= 0.
  std::int64_t key(LocalBlockIndex b, std::int64_t iteration) const {
    const std::int64_t band = iteration / depth_;
    return band * band_span_ + 2 * (iteration % depth_) + layer_[static_cast<std::size_t>(b)];
  }

 private:
  int depth_;
  int axis_ = 2;
  int layers_ = 0;
  std::int64_t band_span_ = 1;  // more than any key within one band
  std::vector<int> layer_;      // per local block: its layer along the wave axis
};

}  // namespace tessera
