#pragma once
// The block kernels of jacobi7. Each reads and writes only the block pointers it is given,
// in a fixed order, so a block's results are bitwise the same whichever rank or thread
// runs it.

#include "face_sources.hpp"
#include "output_stores.hpp"
#include "poisson_problem.hpp"
#include "tessera/mesh/block_layout.hpp"
#include "plane_pipeline.hpp"

namespace tessera::jacobi7 {

/// Bytes a sweep moves per cell update as STREAM counts them: read u and f, write v
/// (neighbour values of u come from cache).
inline constexpr double kBytesPerCellUpdate = 3 * sizeof(double);

/// One Jacobi sweep on a block: v = (f + sum_a axis[a] (u_{-a} + u_{+a})) / diagonal for
/// every interior cell. Reads u's interior, the values beyond its faces where `faces` says
/// (u's ghosts or local neighbours' interiors) and f's interior; writes v's interior. u, f
/// and v must not overlap. The bits of v do not depend on `stores`; with
/// OutputStores::streaming, v's stores bypass the caches and are complete (visible to other
/// threads through the usual release/acquire) when the call returns. `v_faces` (v's
/// FaceSources of this block) say where copies of v's face values go: its first and last
/// column (own_column) and its rows next to y and z faces (own_rows), where not null.
void jacobi_sweep(const BlockLayout& layout, const StencilCoefficients& c, const double* u,
                  const FaceSources& faces, const double* f, double* v, OutputStores stores,
                  const FaceSources& v_faces);

/// pipeline.depth() Jacobi iterations on one block in one pass (PlanePipeline): v's
/// interior becomes what that many jacobi_sweep calls would leave, bit for bit. Reads u's
/// interior and ghosts (the faces' ghosts `depth` deep, filled by a full halo exchange; the
/// boundary layer 0) and f's interior and ghosts (fill_rhs with that depth); u, f and v
/// share `layout` and must not overlap. Scratch is per calling thread. `stores` as in
/// jacobi_sweep, for v only.
void jacobi_time_tile(const PlanePipeline& pipeline, const BlockLayout& layout,
                      const StencilCoefficients& c, const double* u, const double* f, double* v,
                      OutputStores stores);

/// Sums over a block's interior cells, each accumulated in cell order.
struct BlockNorms {
  double residual_squared = 0;  ///< sum of (f - A u)^2
  double error_squared = 0;     ///< sum of (u - exact)^2
};

/// Residual and error sums of u on the block whose cell (0, 0, 0) is global cell `origin`.
/// Reads what jacobi_sweep reads.
BlockNorms block_norms(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin,
                       const double* u, const FaceSources& faces, const double* f);

/// f = problem.rhs on the block's interior and on its ghosts up to `ghost` cells deep that
/// lie inside the domain (0: the interior only).
void fill_rhs(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin, double* f,
              int ghost = 0);

}  // namespace tessera::jacobi7
