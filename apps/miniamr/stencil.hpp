#pragma once
// miniAMR's stencils on one block, with the reference's order of additions.

#include "tessera/amr/block_store.hpp"

namespace miniamr {

/// Replaces the interior of variables first .. first + vars - 1 of `block` by the 7- or
/// 27-point average of the old values (ghosts must be filled). Callable from any thread.
void apply_stencil(const tessera::BlockShape& shape, int points, double* block, int first,
                   int vars);

/// Floating-point operations per cell and variable, as miniAMR counts them (7-point: 6 adds
/// + 1 divide; 27-point: 26 adds + 1 divide).
inline int stencil_flops(int points) {
  return points == 27 ? 27 : 7;
}

}  // namespace miniamr
