#include "jacobi_kernels.hpp"

#include <cstddef>

#if defined(__SSE__)
#include <immintrin.h>
#endif

#include "row_stencil.hpp"

namespace tessera::jacobi7 {

namespace {

// The kernel prefetches the streams that run through a block (u's plane above, f). The
// rows beyond the block's faces are in no such stream: the values beyond the x ends (one
// line per row, at a stride), the rows beyond the y ends, and the first plane's centre and
// below rows; read in place from a neighbour they were last written by streaming stores, so
// each would stall a row for a memory latency. The sweep fetches them this many rows ahead.
constexpr int kFaceRowsAhead = 4;

void prefetch(const double* p) {
#if defined(__SSE__)
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
#else
  (void)p;
#endif
}

void prefetch_row(const double* row, int n) {
  for (int i = 0; i < n; i += BlockLayout::kRowAlignment) prefetch(row + i);
  prefetch(row + n - 1);
}

// Prefetches what row (j, k) reads beyond the block's faces and, in the first plane, the row.
void prefetch_face_rows(const BlockLayout& layout, const double* u, const FaceSources& faces, int j,
                        int k) {
  const Int3 n = layout.cells();
  const RowNeighbours r = row_neighbours(layout, u, faces, j, k);
  prefetch(r.west);
  prefetch(r.east);
  if (j == 0) prefetch_row(r.south, n.x);
  if (j == n.y - 1) prefetch_row(r.north, n.x);
  if (k == 0) {
    prefetch_row(r.centre, n.x);
    prefetch_row(r.below, n.x);
  }
}

}  // namespace

void jacobi_sweep(const BlockLayout& layout, const StencilCoefficients& c, const double* u,
                  const FaceSources& faces, const double* f, double* v, OutputStores stores) {
  const Int3 n = layout.cells();
  const RowStencil stencil{c.axis[0], c.axis[1], c.axis[2], c.inverse_diagonal};
  for (int r = 0; r < kFaceRowsAhead && r < n.y * n.z; ++r) {
    prefetch_face_rows(layout, u, faces, r % n.y, r / n.y);
  }
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      const int ahead = k * n.y + j + kFaceRowsAhead;
      if (ahead < n.y * n.z) prefetch_face_rows(layout, u, faces, ahead % n.y, ahead / n.y);
      const RowNeighbours r = row_neighbours(layout, u, faces, j, k);
      const std::ptrdiff_t row = layout.index(0, 0, j, k);
      stencil.apply(n.x, r.centre, *r.west, *r.east, r.south, r.north, r.below, r.above, f + row,
                    v + row, stores);
    }
  }
  if (stores == OutputStores::streaming) finish_streaming_stores();
}

BlockNorms block_norms(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin,
                       const double* u, const FaceSources& faces, const double* f) {
  const Int3 n = layout.cells();
  const StencilCoefficients& c = problem.coefficients();
  BlockNorms norms;
  const double* sine_x = problem.sine(0).data() + origin.x;
  for (int k = 0; k < n.z; ++k) {
    const double sine_z = problem.sine(2)[origin.z + k];
    for (int j = 0; j < n.y; ++j) {
      const double sine_yz = problem.sine(1)[origin.y + j] * sine_z;
      const RowNeighbours r = row_neighbours(layout, u, faces, j, k);
      const double* rhs = f + layout.index(0, 0, j, k);
      for (int i = 0; i < n.x; ++i) {
        const double left = i == 0 ? *r.west : r.centre[i - 1];
        const double right = i == n.x - 1 ? *r.east : r.centre[i + 1];
        const double applied = c.diagonal * r.centre[i] - c.axis[0] * (left + right) -
                               c.axis[1] * (r.south[i] + r.north[i]) -
                               c.axis[2] * (r.below[i] + r.above[i]);
        const double res = rhs[i] - applied;
        const double e = r.centre[i] - sine_x[i] * sine_yz;
        norms.residual_squared += res * res;
        norms.error_squared += e * e;
      }
    }
  }
  return norms;
}

void fill_rhs(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin, double* f) {
  const Int3 n = layout.cells();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      double* row = f + layout.index(0, 0, j, k);
      for (int i = 0; i < n.x; ++i) {
        row[i] = problem.rhs(origin.x + i, origin.y + j, origin.z + k);
      }
    }
  }
}

}  // namespace tessera::jacobi7
