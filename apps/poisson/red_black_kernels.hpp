#pragma once
// The block kernels of poisson: red-black Gauss-Seidel half-sweeps, residuals, errors and
// the multigrid transfers. Each cell's result is a fixed expression of its neighbours'
// values evaluated in a fixed order, and sums add every cell exactly, so results do not
// depend on the block size, the rank count or the thread that runs a block.

#include "sine_problem.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/mesh/block_layout.hpp"
#include "tessera/mesh/grid_view.hpp"

namespace tessera::poisson {

/// Vertex v is red when v.x + v.y + v.z is even, black otherwise (global indices): a
/// vertex's stencil neighbours all have the other colour.
enum class Colour { red = 0, black = 1 };

/// One half-sweep on a block whose cell (0, 0, 0) is global vertex `origin`: every unknown
/// vertex of `colour` gets u = (f + sum_a axis[a] (u_{-a} + u_{+a})) / diagonal. Reads f
/// and u's other-colour cells, ghosts included; writes u's `colour` cells. Boundary
/// vertices keep their values.
void half_sweep(const BlockLayout& layout, const Stencil& stencil, Int3 origin, Colour colour,
                const double* f, double* u);

/// Adds (f - A u)_v^2 of every unknown vertex of the block to `sum`. Reads u with ghosts.
void add_residual_squares(const BlockLayout& layout, const Stencil& stencil, Int3 origin,
                          const double* f, const double* u, ExactSum& sum);

/// r = f - A u at the block's unknown vertices, 0 at its boundary vertices.
void compute_residual(const BlockLayout& layout, const Stencil& stencil, Int3 origin,
                      const double* f, const double* u, double* r);

/// Adds (u - exact)^2 of every unknown vertex to `squares` and raises `max` to the largest
/// |u - exact| among them.
void add_errors(const BlockLayout& layout, const SineProblem& problem, Int3 origin, const double* u,
                ExactSum& squares, double& max);

/// Adds v^2 of every unknown vertex of the block to `sum` (the norm of f).
void add_unknown_squares(const BlockLayout& layout, Int3 origin, int dimensions,
                         const double* values, ExactSum& sum);

/// Adds every interior cell of u (boundary vertices included) to `sum`: the checksum.
void add_values(const BlockLayout& layout, const double* u, ExactSum& sum);

/// The initial state of a block of a grid of `cells` cells per axis: f = the problem's
/// right-hand side, u = the exact solution on boundary vertices and 0 at unknowns, and the
/// ghosts of u beyond the domain's far faces (vertices N_a) = the exact solution there.
void fill_problem(const BlockLayout& layout, const SineProblem& problem, Int3 cells, Int3 origin,
                  double* f, double* u);

/// Full-weighting restriction of a fine residual to a coarse right-hand side (a
/// RestrictionKernel of LevelTransfer): coarse cell c of [0, coarse_cells) is fine vertex
/// 2c, and f_c = sum over d in {-1,0,1}^dim of prod_a (d_a == 0 ? 1/2 : 1/4) r(2c + d).
/// Reads the fine ghosts at -1. At coarse boundary vertices the value is never read (the
/// coarse smoother and residual skip them), so no origin is needed.
void restrict_full_weighting(ConstGridView fine, GridView coarse, Int3 coarse_cells,
                             int dimensions);

/// Adds the (bi/tri)linear interpolation of a coarse correction to the fine cells
/// [0, fine_cells) (a ProlongationKernel): fine vertex v reads coarse vertices floor(v/2)
/// and, on odd axes, floor(v/2) + 1 (one coarse ghost beyond). Fine boundary vertices
/// get 0 added, since coarse boundary values stay 0.
void prolong_linear_add(ConstGridView coarse, GridView fine, Int3 fine_cells, int dimensions);

}  // namespace tessera::poisson
