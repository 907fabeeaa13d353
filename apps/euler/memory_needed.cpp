#include "memory_needed.hpp"

#include <algorithm>
#include <cmath>

#include "problems.hpp"

namespace euler {

long long block_slots_per_rank(const Options& o, int ranks) {
  const auto roots = o.root_blocks();
  const double root_count = static_cast<double>(roots[0]) * roots[1] * roots[2];
  const double local_roots = std::ceil(root_count / std::max(ranks, 1));
  if (o.max_level == 0) return static_cast<long long>(local_roots);
  if (o.max_blocks_per_rank > 0) return o.max_blocks_per_rank;
  const double children = std::ldexp(1.0, o.dim);
  const double worst = std::ceil(root_count * std::ldexp(1.0, o.dim * o.max_level) *
                                 (1 + 1 / children) / std::max(ranks, 1)) +
                       children;
  const double bound = std::max(4096.0, 8 * local_roots);
  return static_cast<long long>(std::min(worst, bound));
}

tessera::MemoryEstimate memory_needed(const Options& o, int ranks, int threads) {
  constexpr double kDouble = sizeof(double), kHandleBytes = 256, kTaskBytes = 512;
  // p4est's quadrant, the block's place and the euler scans and faults per block.
  constexpr double kBlockBytes = 512;
  const auto local = static_cast<double>(block_slots_per_rank(o, ranks));
  double interior = 1, stored = 1, largest_face = 0;
  for (int a = 0; a < 3; ++a) {
    const double g = a < o.dim ? kGhost : 0;
    interior *= o.block_cells[a];
    stored *= o.block_cells[a] + 2 * g;
  }
  for (int a = 0; a < o.dim; ++a) {
    largest_face = std::max(largest_face, interior / o.block_cells[a] * kGhost);
  }
  const double variables = 2 * kVars;  // the state U and the stage's U*
  double face_cells = 0;               // one cell layer on each face
  for (int a = 0; a < o.dim; ++a) face_cells += 2 * interior / o.block_cells[a];
  tessera::MemoryEstimate need;
  need.add("fields", variables * interior * kDouble * local);
  need.add("ghosts", variables * (stored - interior) * kDouble * local);
  if (o.max_level > 0) {
    // A flux register per block next to a level jump: kVars fluxes on each face.
    need.add("flux registers", kVars * face_cells * kDouble * local);
  }
  if (ranks > 1) {
    // A rank's Morton range has ~12 L^(2/3) remote faces for L blocks (6 L at most);
    // each exchange sends and receives one group of kVars variables.
    const double dims = o.dim;
    const double remote_faces =
        std::min(2 * dims * local, 4 * dims * std::pow(local, (dims - 1) / dims));
    need.add("message buffers", 2 * kVars * remote_faces * largest_face * kDouble);
  }
  double handles = 4, tasks = 8;  // per block: the slot's handles, a cycle's tasks
  if (o.stage_tasks == StageTasks::fused) {
    // A stage's scratch per thread: primitives, slopes, fluxes and the update of one block.
    need.add("scratch", threads * (3 * kVars * stored) * kDouble);
  } else {
    // Per block: the primitives (with ghosts), each axis's term and, for flux correction,
    // each axis's face fluxes; per thread a pencil's primitives, slopes and fluxes.
    const double faces = o.max_level > 0 ? kVars * face_cells : 0;
    need.add("stage buffers",
             (kVars * stored + o.dim * kVars * interior + faces) * kDouble * local);
    double longest = 0;
    for (int a = 0; a < o.dim; ++a) longest = std::max(longest, o.block_cells[a] + 2.0 * kGhost);
    need.add("scratch", threads * (3 * kVars * longest) * kDouble);
    handles += 1 + o.dim;
    tasks += 2 * (1 + o.dim);  // a stage's one task becomes dim + 2
  }
  need.add("metadata", local * (kBlockBytes + handles * kHandleBytes + tasks * kTaskBytes));
  return need;
}

}  // namespace euler
