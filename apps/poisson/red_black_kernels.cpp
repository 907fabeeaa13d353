#include "red_black_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tessera::poisson {
namespace {

// The sum of axis-weighted neighbour pairs of the cell at c, always in the order x, y, z,
// so every code path (sweep, residual) evaluates the same expression bit for bit.
template <bool kThreeD>
double neighbour_sum(const Stencil& s, const double* c, std::ptrdiff_t sy, std::ptrdiff_t sz) {
  double sum = s.axis[0] * (c[-1] + c[1]) + s.axis[1] * (c[-sy] + c[sy]);
  if constexpr (kThreeD) sum += s.axis[2] * (c[-sz] + c[sz]);
  return sum;
}

// Calls row(j, k, first_i) for every row of the block that holds unknowns, where first_i is
// the first local i of an unknown (the boundary vertex x = 0 is skipped).
template <class Row>
void for_unknown_rows(const BlockLayout& layout, Int3 origin, int dimensions, Row&& row) {
  const Int3 n = layout.cells();
  for (int k = 0; k < n.z; ++k) {
    if (dimensions == 3 && origin.z + k == 0) continue;
    for (int j = 0; j < n.y; ++j) {
      if (origin.y + j == 0) continue;
      row(j, k, origin.x == 0 ? 1 : 0);
    }
  }
}

template <bool kThreeD>
void half_sweep_impl(const BlockLayout& layout, const Stencil& s, Int3 origin, Colour colour,
                     const double* f, double* u) {
  const std::ptrdiff_t sy = layout.stride_y();
  const std::ptrdiff_t sz = layout.stride_z();
  const int nx = layout.cells().x;
  for_unknown_rows(layout, origin, s.dimensions, [&](int j, int k, int first) {
    const std::ptrdiff_t row = layout.index(0, 0, j, k);
    // The first i >= first with origin.x + i + y + z of the colour's parity.
    const int parity = (static_cast<int>(colour) + origin.x + origin.y + j + origin.z + k) & 1;
    const int start = first + ((parity - first) & 1);
    double* ur = u + row;
    const double* fr = f + row;
    // A stride-2 loop does not vectorize: every point of a chunk is computed with unit
    // stride (the colour's points read only the other colour's, which this half-sweep does
    // not change), then the colour's points are stored. Same expression, same bits.
    constexpr int kChunk = 64;
    double updated[kChunk];
    for (int i0 = start; i0 < nx; i0 += kChunk) {
      const int len = std::min(kChunk, nx - i0);
      for (int m = 0; m < len; ++m) {
        updated[m] =
            (fr[i0 + m] + neighbour_sum<kThreeD>(s, ur + i0 + m, sy, sz)) * s.inverse_diagonal;
      }
      for (int m = 0; m < len; m += 2) ur[i0 + m] = updated[m];
    }
  });
}

template <bool kThreeD, class Out>
void residual_impl(const BlockLayout& layout, const Stencil& s, Int3 origin, const double* f,
                   const double* u, Out&& out) {
  const std::ptrdiff_t sy = layout.stride_y();
  const std::ptrdiff_t sz = layout.stride_z();
  const int nx = layout.cells().x;
  for_unknown_rows(layout, origin, s.dimensions, [&](int j, int k, int first) {
    const std::ptrdiff_t row = layout.index(0, 0, j, k);
    const double* ur = u + row;
    const double* fr = f + row;
    for (int i = first; i < nx; ++i) {
      out(row + i, fr[i] - (s.diagonal * ur[i] - neighbour_sum<kThreeD>(s, ur + i, sy, sz)));
    }
  });
}

}  // namespace

void half_sweep(const BlockLayout& layout, const Stencil& stencil, Int3 origin, Colour colour,
                const double* f, double* u) {
  if (stencil.dimensions == 3) {
    half_sweep_impl<true>(layout, stencil, origin, colour, f, u);
  } else {
    half_sweep_impl<false>(layout, stencil, origin, colour, f, u);
  }
}

void add_residual_squares(const BlockLayout& layout, const Stencil& stencil, Int3 origin,
                          const double* f, const double* u, ExactSum& sum) {
  const auto add = [&sum](std::ptrdiff_t, double r) { sum.add(r * r); };
  if (stencil.dimensions == 3) {
    residual_impl<true>(layout, stencil, origin, f, u, add);
  } else {
    residual_impl<false>(layout, stencil, origin, f, u, add);
  }
}

void compute_residual(const BlockLayout& layout, const Stencil& stencil, Int3 origin,
                      const double* f, const double* u, double* r) {
  // Boundary vertices first get 0; the unknowns are then overwritten.
  const Int3 n = layout.cells();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) std::fill_n(r + layout.index(0, 0, j, k), n.x, 0.0);
  }
  const auto store = [r](std::ptrdiff_t at, double value) { r[at] = value; };
  if (stencil.dimensions == 3) {
    residual_impl<true>(layout, stencil, origin, f, u, store);
  } else {
    residual_impl<false>(layout, stencil, origin, f, u, store);
  }
}

void add_errors(const BlockLayout& layout, const SineProblem& problem, Int3 origin, const double* u,
                ExactSum& squares, double& max) {
  for_unknown_rows(layout, origin, problem.dimensions(), [&](int j, int k, int first) {
    const double* ur = u + layout.index(0, 0, j, k);
    for (int i = first; i < layout.cells().x; ++i) {
      const double e = ur[i] - problem.exact({origin.x + i, origin.y + j, origin.z + k});
      squares.add(e * e);
      max = std::max(max, std::abs(e));
    }
  });
}

void add_unknown_squares(const BlockLayout& layout, Int3 origin, int dimensions,
                         const double* values, ExactSum& sum) {
  for_unknown_rows(layout, origin, dimensions, [&](int j, int k, int first) {
    const double* row = values + layout.index(0, 0, j, k);
    for (int i = first; i < layout.cells().x; ++i) sum.add(row[i] * row[i]);
  });
}

void add_values(const BlockLayout& layout, const double* u, ExactSum& sum) {
  const Int3 n = layout.cells();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      const double* row = u + layout.index(0, 0, j, k);
      for (int i = 0; i < n.x; ++i) sum.add(row[i]);
    }
  }
}

void fill_problem(const BlockLayout& layout, const SineProblem& problem, Int3 cells, Int3 origin,
                  double* f, double* u) {
  const Int3 n = layout.cells();
  const int dimensions = problem.dimensions();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const Int3 v{origin.x + i, origin.y + j, origin.z + k};
        const std::ptrdiff_t at = layout.index(0, i, j, k);
        f[at] = problem.rhs(v);
        u[at] = is_boundary(v, dimensions) ? problem.exact(v) : 0.0;
      }
    }
  }
  // The far boundary (vertex N_a) is the ghost layer beyond the last block of axis a.
  for (int a = 0; a < dimensions; ++a) {
    if (origin[a] + n[a] != cells[a]) continue;
    Int3 lo{0, 0, 0};
    Int3 hi = n;
    lo[a] = n[a];
    hi[a] = n[a] + 1;
    for (int k = lo.z; k < hi.z; ++k) {
      for (int j = lo.y; j < hi.y; ++j) {
        for (int i = lo.x; i < hi.x; ++i) {
          u[layout.index(0, i, j, k)] = problem.exact({origin.x + i, origin.y + j, origin.z + k});
        }
      }
    }
  }
}

void restrict_full_weighting(ConstGridView fine, GridView coarse, Int3 coarse_cells,
                             int dimensions) {
  const std::ptrdiff_t sy = fine.stride_y;
  const std::ptrdiff_t sz = fine.stride_z;
  // Full weighting along x of the fine row through c: r(-1)/4 + r(0)/2 + r(+1)/4, then the
  // same along y and z, always in this order.
  const auto along_x = [](const double* c) { return 0.25 * c[-1] + 0.5 * c[0] + 0.25 * c[1]; };
  const auto along_xy = [&](const double* c) {
    return 0.25 * along_x(c - sy) + 0.5 * along_x(c) + 0.25 * along_x(c + sy);
  };
  for (int k = 0; k < coarse_cells.z; ++k) {
    for (int j = 0; j < coarse_cells.y; ++j) {
      double* out = coarse.row(j, k);
      for (int i = 0; i < coarse_cells.x; ++i) {
        const double* c = &fine(2 * i, 2 * j, dimensions == 3 ? 2 * k : 0);
        out[i] = dimensions == 3
                     ? 0.25 * along_xy(c - sz) + 0.5 * along_xy(c) + 0.25 * along_xy(c + sz)
                     : along_xy(c);
      }
    }
  }
}

void prolong_linear_add(ConstGridView coarse, GridView fine, Int3 fine_cells, int dimensions) {
  const std::ptrdiff_t sy = coarse.stride_y;
  const std::ptrdiff_t sz = coarse.stride_z;
  const auto along_x = [](const double* c, bool odd) { return odd ? 0.5 * (c[0] + c[1]) : c[0]; };
  const auto along_xy = [&](const double* c, bool odd_x, bool odd_y) {
    return odd_y ? 0.5 * (along_x(c, odd_x) + along_x(c + sy, odd_x)) : along_x(c, odd_x);
  };
  for (int k = 0; k < fine_cells.z; ++k) {
    const bool odd_z = dimensions == 3 && (k & 1);
    for (int j = 0; j < fine_cells.y; ++j) {
      double* out = fine.row(j, k);
      for (int i = 0; i < fine_cells.x; ++i) {
        const double* c = &coarse(i / 2, j / 2, dimensions == 3 ? k / 2 : 0);
        const bool odd_x = i & 1;
        const bool odd_y = j & 1;
        out[i] += odd_z ? 0.5 * (along_xy(c, odd_x, odd_y) + along_xy(c + sz, odd_x, odd_y))
                        : along_xy(c, odd_x, odd_y);
      }
    }
  }
}

}  // namespace tessera::poisson
