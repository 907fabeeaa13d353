// miniAMR's refinement marks as a monotone fixed point on the forest. The reference sweeps
// level by level from the finest, pushing changes to neighbours and parents; here every
// block pulls from its face neighbours and siblings instead. Each rule only raises marks
// (-1 -> 0 -> +1) and is triggered by raised marks, so both reach the same least fixed
// point above the start state.
#include "tessera/amr/marking.hpp"

#include <mpi.h>

#include <stdexcept>

#include "tessera/base/check_mpi.hpp"

namespace tessera {

namespace {

// Mark of a face neighbour, local or ghost.
std::int8_t mark_of(BlockRef ref, const std::vector<std::int8_t>& local,
                    const std::vector<std::int8_t>& ghost) {
  return ref.ghost ? ghost[static_cast<std::size_t>(ref.index)]
                   : local[static_cast<std::size_t>(ref.index)];
}

bool has_finer_neighbor(const Forest& forest, std::int32_t i) {
  for (int f = 0; f < kBlockFaces; ++f)
    if (forest.neighbors(i, f).kind == FaceKind::finer) return true;
  return false;
}

// Applies the rules to local blocks until none changes, with ghost marks held fixed.
void settle_locally(const Forest& forest, std::vector<std::int8_t>& marks,
                    const std::vector<std::int8_t>& ghost_marks) {
  const std::int32_t n = forest.local_count();
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::int32_t i = 0; i < n; ++i) {
      std::int8_t& m = marks[static_cast<std::size_t>(i)];
      if (m == 1) continue;
      std::int8_t next = m;
      if (next == -1) {
        // A family merges only if all its siblings agree.
        const std::int32_t first = forest.family_first(i);
        for (std::int32_t s = first; s >= 0 && s < first + forest.children(); ++s)
          if (marks[static_cast<std::size_t>(s)] >= 0) next = 0;
      }
      for (int f = 0; f < kBlockFaces; ++f) {
        const FaceNeighbors& nb = forest.neighbors(i, f);
        if (nb.kind == FaceKind::same && next == -1 &&
            mark_of(nb.blocks[0], marks, ghost_marks) == 1)
          next = 0;  // a same-level neighbour refines: coarsening would make a 2-level jump
        if (nb.kind == FaceKind::finer)
          for (int h = 0; h < nb.count(); ++h)
            if (mark_of(nb.blocks[static_cast<std::size_t>(h)], marks, ghost_marks) == 1)
              next = 1;  // a finer neighbour refines again: follow it
      }
      if (next != m) {
        m = next;
        changed = true;
      }
    }
  }
}

}  // namespace

std::vector<std::int8_t> refinement_marks(const Forest& forest, std::span<const std::uint8_t> hit,
                                          int finest_level) {
  const std::int32_t n = forest.local_count();
  if (hit.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument("refinement_marks: one hit flag per local block expected");
  std::vector<std::int8_t> wants(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < wants.size(); ++i) wants[i] = hit[i] != 0 ? 1 : -1;
  return balanced_marks(forest, wants, finest_level);
}

std::vector<std::int8_t> balanced_marks(const Forest& forest, std::span<const std::int8_t> wants,
                                        int finest_level) {
  const std::int32_t n = forest.local_count();
  if (wants.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument("balanced_marks: one wish per local block expected");
  std::vector<std::int8_t> marks(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) {
    const int level = forest.local(i).level;
    const std::int8_t want = wants[static_cast<std::size_t>(i)];
    std::int8_t m = want < 0 ? -1 : 0;
    if (level > 0 && forest.family_first(i) < 0) m = 0;  // a sibling is not a leaf
    if (want > 0) m = level >= finest_level ? 0 : 1;
    if (m == -1 && (level == 0 || has_finer_neighbor(forest, i))) m = 0;
    marks[static_cast<std::size_t>(i)] = m;
  }

  std::vector<std::int8_t> ghost_marks = forest.exchange_ghost_values<std::int8_t>(marks);
  for (;;) {
    settle_locally(forest, marks, ghost_marks);
    std::vector<std::int8_t> fresh = forest.exchange_ghost_values<std::int8_t>(marks);
    int changed = fresh != ghost_marks ? 1 : 0;
    TESSERA_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, forest.communicator()));
    ghost_marks = std::move(fresh);
    if (changed == 0) break;
  }
  return marks;
}

}  // namespace tessera
