#include "jacobi_kernels.hpp"

#include <cstddef>

#include "row_stencil.hpp"

namespace tessera::jacobi7 {

namespace {

// Distance to the neighbour row along y and z; 0 on a flat axis, whose weight is 0, so
// 2-D meshes run the same loop without z ghost planes.
std::ptrdiff_t neighbour_step(const BlockLayout& layout, int axis) {
  if (layout.ghost()[axis] == 0) return 0;
  return axis == 1 ? layout.stride_y() : layout.stride_z();
}

}  // namespace

void jacobi_sweep(const BlockLayout& layout, const StencilCoefficients& c, const double* u,
                  const double* f, double* v, OutputStores stores) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t dy = neighbour_step(layout, 1);
  const std::ptrdiff_t dz = neighbour_step(layout, 2);
  const RowStencil stencil{c.axis[0], c.axis[1], c.axis[2], c.inverse_diagonal};
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      const std::ptrdiff_t row = layout.index(0, 0, j, k);
      const double* centre = u + row;
      stencil.apply(n.x, centre, centre - dy, centre + dy, centre - dz, centre + dz, f + row,
                    v + row, stores);
    }
  }
  if (stores == OutputStores::streaming) finish_streaming_stores();
}

BlockNorms block_norms(const BlockLayout& layout, const PoissonProblem& problem, Int3 origin,
                       const double* u, const double* f) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t dy = neighbour_step(layout, 1);
  const std::ptrdiff_t dz = neighbour_step(layout, 2);
  const StencilCoefficients& c = problem.coefficients();
  BlockNorms norms;
  const double* sine_x = problem.sine(0).data() + origin.x;
  for (int k = 0; k < n.z; ++k) {
    const double sine_z = problem.sine(2)[origin.z + k];
    for (int j = 0; j < n.y; ++j) {
      const double sine_yz = problem.sine(1)[origin.y + j] * sine_z;
      const std::ptrdiff_t row = layout.index(0, 0, j, k);
      const double* centre = u + row;
      const double* rhs = f + row;
      for (int i = 0; i < n.x; ++i) {
        const double applied = c.diagonal * centre[i] -
                               c.axis[0] * (centre[i - 1] + centre[i + 1]) -
                               c.axis[1] * (centre[i - dy] + centre[i + dy]) -
                               c.axis[2] * (centre[i - dz] + centre[i + dz]);
        const double r = rhs[i] - applied;
        const double e = centre[i] - sine_x[i] * sine_yz;
        norms.residual_squared += r * r;
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
