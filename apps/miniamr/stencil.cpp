#include "stencil.hpp"

#include <cstddef>
#include <vector>

namespace miniamr {

namespace {

// new(i,j,k) = [u(i-1,j,k) + u(i,j-1,k) + u(i,j,k-1) + u(i,j,k) + u(i,j,k+1) + u(i,j+1,k)
//               + u(i+1,j,k)] / 7, left to right. `u` is variable 0's cell (0, 0, 0); `out`
// gets the interior in the layout's order (k, j, i with i fastest).
void seven_point(const tessera::BlockLayout& l, const double* u, double* out) {
  const std::ptrdiff_t sy = l.stride_y(), sz = l.stride_z();
  const tessera::Int3 n = l.cells();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j) {
      const double* c = u + k * sz + j * sy;
      for (int i = 0; i < n.x; ++i)
        *out++ = (c[i - 1] + c[i - sy] + c[i - sz] + c[i] + c[i + sz] + c[i + sy] + c[i + 1]) / 7.0;
    }
}

// Sum of the 3x3 neighbourhood in the (j, k) plane around `c`: j-major, k-minor.
double plane_sum(const double* c, std::ptrdiff_t sy, std::ptrdiff_t sz) {
  return c[-sy - sz] + c[-sy] + c[-sy + sz] + c[-sz] + c[0] + c[sz] + c[sy - sz] + c[sy] +
         c[sy + sz];
}

// new = (sum over the i-1 plane + sum over the i plane + sum over the i+1 plane) / 27.
void twenty_seven_point(const tessera::BlockLayout& l, const double* u, double* out) {
  const std::ptrdiff_t sy = l.stride_y(), sz = l.stride_z();
  const tessera::Int3 n = l.cells();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j) {
      const double* c = u + k * sz + j * sy;
      for (int i = 0; i < n.x; ++i) {
        const double sb = plane_sum(c + i - 1, sy, sz);
        const double sm = plane_sum(c + i, sy, sz);
        const double sf = plane_sum(c + i + 1, sy, sz);
        *out++ = (sb + sm + sf) / 27.0;
      }
    }
}

}  // namespace

void apply_stencil(const tessera::BlockShape& s, int points, double* block, int first, int vars) {
  const tessera::BlockLayout l = s.layout();
  const tessera::Int3 n = l.cells();
  thread_local std::vector<double> work;
  work.resize(s.interior_cells());
  for (int v = first; v < first + vars; ++v) {
    double* u = block + l.index(v, 0, 0, 0);
    if (points == 27)
      twenty_seven_point(l, u, work.data());
    else
      seven_point(l, u, work.data());
    const double* in = work.data();
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j) {
        double* row = block + l.index(v, 0, j, k);
        for (int i = 0; i < n.x; ++i) row[i] = in[i];  // rows are short: no memmove call
        in += n.x;
      }
  }
}

}  // namespace miniamr
