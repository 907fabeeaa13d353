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
    for (int i = start; i < nx; i += 2) {
      ur[i] = (fr[i] + neighbour_sum<kThreeD>(s, ur + i, sy, sz)) * s.inverse_diagonal;
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

void restrict_residual(const BlockLayout& fine_layout, Int3 fine_origin, const double* r,
                       const BlockLayout& coarse_layout, Int3 coarse_origin, Box coarse_box,
                       int dimensions, double* f_coarse) {
  const std::ptrdiff_t sy = fine_layout.stride_y();
  const std::ptrdiff_t sz = fine_layout.stride_z();
  // Full weighting along x of the fine row through c: r(-1)/4 + r(0)/2 + r(+1)/4.
  const auto along_x = [](const double* c) { return 0.25 * c[-1] + 0.5 * c[0] + 0.25 * c[1]; };
  const auto along_xy = [&](const double* c) {
    return 0.25 * along_x(c - sy) + 0.5 * along_x(c) + 0.25 * along_x(c + sy);
  };
  for (int k = coarse_box.lo.z; k < coarse_box.hi.z; ++k) {
    for (int j = coarse_box.lo.y; j < coarse_box.hi.y; ++j) {
      for (int i = coarse_box.lo.x; i < coarse_box.hi.x; ++i) {
        const Int3 V{coarse_origin.x + i, coarse_origin.y + j, coarse_origin.z + k};
        double& out = f_coarse[coarse_layout.index(0, i, j, k)];
        if (is_boundary(V, dimensions)) {
          out = 0;
          continue;
        }
        const int fz = dimensions == 3 ? 2 * V.z - fine_origin.z : 0;
        const double* c =
            r + fine_layout.index(0, 2 * V.x - fine_origin.x, 2 * V.y - fine_origin.y, fz);
        out = dimensions == 3
                  ? 0.25 * along_xy(c - sz) + 0.5 * along_xy(c) + 0.25 * along_xy(c + sz)
                  : along_xy(c);
      }
    }
  }
}

void prolong_correction(const BlockLayout& coarse_layout, Int3 coarse_origin,
                        const double* u_coarse, const BlockLayout& fine_layout, Int3 fine_origin,
                        Box fine_box, int dimensions, double* u) {
  const std::ptrdiff_t sy = coarse_layout.stride_y();
  const std::ptrdiff_t sz = coarse_layout.stride_z();
  // Linear interpolation along x at fine offset parity `odd` from coarse cell c.
  const auto along_x = [](const double* c, bool odd) { return odd ? 0.5 * (c[0] + c[1]) : c[0]; };
  const auto along_xy = [&](const double* c, bool odd_x, bool odd_y) {
    return odd_y ? 0.5 * (along_x(c, odd_x) + along_x(c + sy, odd_x)) : along_x(c, odd_x);
  };
  for (int k = fine_box.lo.z; k < fine_box.hi.z; ++k) {
    for (int j = fine_box.lo.y; j < fine_box.hi.y; ++j) {
      for (int i = fine_box.lo.x; i < fine_box.hi.x; ++i) {
        const Int3 v{fine_origin.x + i, fine_origin.y + j, fine_origin.z + k};
        if (is_boundary(v, dimensions)) continue;
        const int cz = dimensions == 3 ? v.z / 2 - coarse_origin.z : 0;
        const double* c = u_coarse + coarse_layout.index(0, v.x / 2 - coarse_origin.x,
                                                         v.y / 2 - coarse_origin.y, cz);
        const bool odd_x = v.x & 1;
        const bool odd_y = v.y & 1;
        double correction;
        if (dimensions == 3 && (v.z & 1)) {
          correction = 0.5 * (along_xy(c, odd_x, odd_y) + along_xy(c + sz, odd_x, odd_y));
        } else {
          correction = along_xy(c, odd_x, odd_y);
        }
        u[fine_layout.index(0, i, j, k)] += correction;
      }
    }
  }
}

}  // namespace tessera::poisson
