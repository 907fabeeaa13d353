#pragma once
// miniAMR's refinement rules on a Forest (layer `amr`): from the blocks an object hits,
// decide which blocks split (+1), which families merge (-1) and which stay (0), keeping
// 2:1 balance across faces (edges and corners are not constrained, as in miniAMR).
//
// The rules, per local leaf b at level L (see docs/apps/miniamr.md for the derivation
// from the reference):
//   start:  hit -> +1 (0 at the finest level), else -1; 0 for level-0 blocks, for leaves
//           whose siblings are not all leaves, and for blocks with a finer face neighbour;
//   repeat until nothing changes on any rank:
//     -1 -> 0  if a sibling is >= 0, or a same-level face neighbour is +1;
//     <1 -> +1 if a finer face neighbour is +1.
// Marks only rise, so the fixed point does not depend on the order of evaluation, which
// makes the result identical for any number of ranks and equal to the reference's.

#include <cstdint>
#include <span>
#include <vector>

#include "tessera/amr/forest.hpp"

namespace tessera {

/// Collective. Needs every family of sibling leaves on one rank (Forest::partition and
/// Forest::gather_families ensure it). Returns one mark per local block (+1 split, -1 merge with
/// its siblings, 0 keep) for one miniAMR refinement iteration. `hit[i]` != 0 when local block i
/// asks to refine (an object intersects it, or uniform refinement); `finest_level` is miniAMR's
/// num_refine. The marks keep 2:1 face balance, so Forest::adapt can apply them as they are.
std::vector<std::int8_t> refinement_marks(const Forest& forest, std::span<const std::uint8_t> hit,
                                          int finest_level);

/// Collective. As refinement_marks, from a wish per local block (a refinement criterion):
/// wants[i] = +1 asks to split, -1 allows merging, 0 asks to stay. The start state takes
/// +1 where wanted (0 at finest_level), -1 where allowed (with the same exceptions), 0
/// elsewhere; the same rules then keep 2:1 face balance, so a block may be split although
/// it did not ask (a finer neighbour refines) or kept although it allowed merging.
std::vector<std::int8_t> balanced_marks(const Forest& forest, std::span<const std::int8_t> wants,
                                        int finest_level);

}  // namespace tessera
