#include "jacobi_kernels.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "row_stencil.hpp"

namespace tessera::jacobi7 {

namespace {

// Fetches the buffer sections a sweep reads and fills, all at once: the peer's MPI wrote the
// receive sections and read the send sections last (their lines are in its cache), and
// taken one at a time, between rows of the sweep, those misses stalled it.
void prefetch_sections(const FaceSources& u_faces, const FaceSources& v_faces, Int3 n) {
  const auto fetch = [](const double* p, std::ptrdiff_t count, bool write) {
    for (std::ptrdiff_t i = 0; i < count; i += 8) {
      // Volatile: GCC deletes a loop of nothing but __builtin_prefetch (-ffinite-loops).
#if defined(__x86_64__)
      if (write) {
        asm volatile("prefetchw %0" : : "m"(p[i]));
      } else {
        asm volatile("prefetcht1 %0" : : "m"(p[i]));
      }
#endif
    }
  };
  const std::ptrdiff_t column = std::ptrdiff_t{n.y} * n.z;
  for (int side = 0; side < 2; ++side) {
    if (v_faces.own_column[side]) fetch(v_faces.own_column[side], column, true);
    if (u_faces.x_column[side]) fetch(u_faces.x_column[side], column, false);
  }
  for (int f = 0; f < 4; ++f) {
    const std::ptrdiff_t rows = std::ptrdiff_t{n.x} * (f < 2 ? n.z : n.y);
    if (v_faces.own_rows[f]) fetch(v_faces.own_rows[f], rows, true);
    if (u_faces.ghost_rows[f]) fetch(u_faces.ghost_rows[f], rows, false);
  }
}

}  // namespace

void jacobi_sweep(const BlockLayout& layout, const StencilCoefficients& c, const double* u,
                  const FaceSources& faces, const double* f, double* v, OutputStores stores,
                  const FaceSources& v_faces) {
  const Int3 n = layout.cells();
  const RowStencil stencil{c.axis[0], c.axis[1], c.axis[2], c.inverse_diagonal};
  const std::array<double*, 2>& columns = v_faces.own_column;
  const std::array<double*, 4>& rows = v_faces.own_rows;
  prefetch_sections(faces, v_faces, n);
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      const RowNeighbours r = row_neighbours(layout, u, faces, j, k);
      const std::ptrdiff_t row = layout.index(0, 0, j, k);
      const std::ptrdiff_t at = std::ptrdiff_t{k} * n.y + j;
      // Rows next to a fused y or z face are also copied into the send section while
      // they are in L1: such a row is stored through the cache, not streamed past it.
      double* const copies[4] = {
          j == 0 && rows[0] ? rows[0] + std::ptrdiff_t{k} * n.x : nullptr,
          j == n.y - 1 && rows[1] ? rows[1] + std::ptrdiff_t{k} * n.x : nullptr,
          k == 0 && rows[2] ? rows[2] + std::ptrdiff_t{j} * n.x : nullptr,
          k == n.z - 1 && rows[3] ? rows[3] + std::ptrdiff_t{j} * n.x : nullptr};
      const bool copied = copies[0] || copies[1] || copies[2] || copies[3];
      stencil.apply(n.x, r.centre, r.west, r.east, r.south, r.north, r.below, r.above, f + row,
                    v + row, copied ? OutputStores::cached : stores,
                    columns[0] ? columns[0] + at : nullptr, columns[1] ? columns[1] + at : nullptr);
      if (copied) {
        for (double* copy : copies)
          if (copy) std::copy_n(v + row, n.x, copy);
      }
    }
  }
  if (stores == OutputStores::streaming) finish_streaming_stores();
}

void jacobi_time_tile(const PlanePipeline& pipeline, const BlockLayout& layout,
                      const StencilCoefficients& c, const double* u, const double* f, double* v,
                      OutputStores stores) {
  // Only the first level reads u and f from memory: later levels find both in L2.
  const RowStencil from_memory{c.axis[0], c.axis[1], c.axis[2], c.inverse_diagonal, true};
  const RowStencil from_cache{c.axis[0], c.axis[1], c.axis[2], c.inverse_diagonal, false};
  // A few hundred KB at most, reused by every tile this thread runs: kept in L2.
  thread_local std::vector<double> scratch;
  const int depth = pipeline.depth();
  const auto update_row = [&](int level, Int3 first, int n, const PlaneRow& r, double* out) {
    const double* rhs = f + layout.index(0, first.x, first.y, first.z);
    if (level > 1 && level < depth) {
      from_cache.apply_in_cache(n, r.centre, r.west, r.east, r.south, r.north, r.below, r.above,
                                rhs, out);
    } else {
      (level == 1 ? from_memory : from_cache)
          .apply(n, r.centre, r.west, r.east, r.south, r.north, r.below, r.above, rhs, out,
                 level == depth ? stores : OutputStores::cached);
    }
  };
  const double* const fields[] = {f};  // prefetched with u for level 1
  pipeline.run(u, v, scratch, update_row, fields);
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
        const double left = i == 0 ? r.west : r.centre[i - 1];
        const double right = i == n.x - 1 ? r.east : r.centre[i + 1];
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

void fill_rhs(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin, double* f,
              int ghost) {
  const Int3 n = layout.cells();
  Box box;
  for (int a = 0; a < 3; ++a) {
    const int g = std::min(ghost, layout.ghost()[a]);
    const int domain = static_cast<int>(problem.sine(a).size());
    box.lo[a] = std::max(-g, -origin[a]);
    box.hi[a] = std::min(n[a] + g, domain - origin[a]);
  }
  for (int k = box.lo.z; k < box.hi.z; ++k) {
    for (int j = box.lo.y; j < box.hi.y; ++j) {
      double* row = f + layout.index(0, 0, j, k);
      for (int i = box.lo.x; i < box.hi.x; ++i) {
        row[i] = problem.rhs(origin.x + i, origin.y + j, origin.z + k);
      }
    }
  }
}

}  // namespace tessera::jacobi7
