#pragma once
// NPB MG's four kernels on one block (or block pair), written on strided views so that a
// block's interior, its ghosts and a packed message buffer look alike. Each follows NPB's
// loop structure (row sums kept in small arrays, i innermost) and its order of floating-point
// operations, so every cell's value does not depend on how the grid is cut into blocks.

#include "npb_problem.hpp"
#include "tessera/mesh/box.hpp"
#include "tessera/mesh/grid_view.hpp"

namespace tessera::mg {

/// Largest block edge the kernels' row buffers hold.
inline constexpr int kMaxBlockCells = 1024;

/// r = v - A u on the cells [0, n) (resid). Reads u's ghost layer; r may alias v.
/// `stream`: write r with streaming stores where its rows are 64-byte aligned (r is not
/// read again before it would have left the cache: the finest level of a large grid),
/// sparing the read of every output line before it is written; same bits either way.
void residual(ConstGridView u, ConstGridView v, GridView r, Int3 n, const Coefficients& a,
              bool stream = false);
/// u = u + S r on the cells [0, n) (psinv). Reads r's ghost layer. `zero_first`: u is
/// taken as zero (the coarsest level's u = S r) without being read.
void smooth(ConstGridView r, GridView u, Int3 n, const Coefficients& c, bool zero_first);
/// The coarse cells [0, nc) from the fine cells under them (rprj3): coarse cell J sits on
/// fine cell 2J + 1 and reads fine 2J .. 2J + 2 on every axis (the + side ghost).
void restrict_residual(ConstGridView fine, GridView coarse, Int3 nc);
/// Trilinear interpolation of z into the fine cells [0, nf) (interp): fine 2J + 1 takes
/// z(J), fine 2J + 2 the mean of z(J) and z(J + 1); reads z's ghosts on both sides. `add`:
/// u += the interpolant (NPB's finest level); otherwise u = the interpolant (a level NPB
/// zeroes first). `ghosts`: also the ghost layer [-1, nf] (NPB's interp writes it too), which
/// then holds what the neighbours compute for those cells, as a halo exchange would bring.
void interpolate(ConstGridView z, GridView u, Int3 nf, bool add, bool ghosts);

}  // namespace tessera::mg
