#pragma once
// The block kernels of jacobi7. Each reads and writes only the block pointers it is given,
// in a fixed order, so a block's results are bitwise the same whichever rank or thread
// runs it.

#include "face_sources.hpp"
#include "output_stores.hpp"
#include "poisson_problem.hpp"
#include "tessera/mesh/block_layout.hpp"

namespace tessera::jacobi7 {

/// Bytes a sweep moves per cell update as STREAM counts them: read u and f, write v
/// (neighbour values of u come from cache).
inline constexpr double kBytesPerCellUpdate = 3 * sizeof(double);

/// One Jacobi sweep on a block: v = (f + sum_a axis[a] (u_{-a} + u_{+a})) / diagonal for
/// every interior cell. Reads u's interior, the values beyond its faces where `faces` says
/// (u's ghosts or local neighbours' interiors) and f's interior; writes v's interior. u, f
/// and v must not overlap. The bits of v do not depend on `stores`; with
/// OutputStores::streaming, v's stores bypass the caches and are complete (visible to other
/// threads through the usual release/acquire) when the call returns. `v_columns` (v's
/// FaceSources::own_column of this block) receive copies of v's first and last column.
void jacobi_sweep(const BlockLayout& layout, const StencilCoefficients& c, const double* u,
                  const FaceSources& faces, const double* f, double* v, OutputStores stores,
                  const std::array<double*, 2>& v_columns);

/// Sums over a block's interior cells, each accumulated in cell order.
struct BlockNorms {
  double residual_squared = 0;  ///< sum of (f - A u)^2
  double error_squared = 0;     ///< sum of (u - exact)^2
};

/// Residual and error sums of u on the block whose cell (0, 0, 0) is global cell `origin`.
/// Reads what jacobi_sweep reads.
BlockNorms block_norms(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin,
                       const double* u, const FaceSources& faces, const double* f);

/// f = problem.rhs on the block's interior.
void fill_rhs(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin, double* f);

}  // namespace tessera::jacobi7
