#pragma once
// The block kernels of poisson: red-black Gauss-Seidel half-sweeps, residuals, errors and
// the multigrid transfers. Each cell's result is a fixed expression of its neighbours'
// values evaluated in a fixed order, and sums add every cell exactly, so results do not
// depend on the block size, the rank count or the thread that runs a block.

#include "sine_problem.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/mesh/block_layout.hpp"

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

/// Full-weighting restriction of a fine residual to a coarse right-hand side, for the
/// coarse cells `coarse_box` (local to the coarse block with origin `coarse_origin`):
/// f_c(V) = sum over d in {-1,0,1}^dim of prod_a (d_a == 0 ? 1/2 : 1/4) r(2V + d), and 0 at
/// coarse boundary vertices. The fine block (origin `fine_origin`) must hold 2V + d for
/// every V of the box, ghosts included; fine boundary and far-ghost residuals must be 0.
void restrict_residual(const BlockLayout& fine_layout, Int3 fine_origin, const double* r,
                       const BlockLayout& coarse_layout, Int3 coarse_origin, Box coarse_box,
                       int dimensions, double* f_coarse);

/// Adds the (bi/tri)linear interpolation of the coarse correction to the fine unknowns in
/// `fine_box` (local to the fine block): fine vertex v reads coarse vertices floor(v/2)
/// and ceil(v/2) per axis, which the coarse block (ghosts included) must hold. Boundary
/// vertices are left alone.
void prolong_correction(const BlockLayout& coarse_layout, Int3 coarse_origin,
                        const double* u_coarse, const BlockLayout& fine_layout, Int3 fine_origin,
                        Box fine_box, int dimensions, double* u);

}  // namespace tessera::poisson
