#include "stencil.hpp"

#include <cstddef>
#include <vector>

namespace miniamr {

namespace {

// new(i,j,k) = [u(i-1,j,k) + u(i,j-1,k) + u(i,j,k-1) + u(i,j,k) + u(i,j,k+1) + u(i,j+1,k)
//               + u(i+1,j,k)] / 7, left to right.
void seven_point(const tessera::BlockShape& s, const double* u, double* out) {
  const std::ptrdiff_t si = static_cast<std::ptrdiff_t>(s.stride_i());
  const std::ptrdiff_t sj = static_cast<std::ptrdiff_t>(s.stride_j());
  const int nx = s.cells[0], ny = s.cells[1], nz = s.cells[2];
  for (int i = 1; i <= nx; ++i)
    for (int j = 1; j <= ny; ++j) {
      const double* c = u + i * si + j * sj;
      for (int k = 1; k <= nz; ++k)
        *out++ = (c[k - si] + c[k - sj] + c[k - 1] + c[k] + c[k + 1] + c[k + sj] + c[k + si]) / 7.0;
    }
}

// Sum of the 3x3 neighbourhood of plane `p` around (j, k): j-major, k-minor.
double plane_sum(const double* p, std::ptrdiff_t sj, int k) {
  return p[k - 1 - sj] + p[k - sj] + p[k + 1 - sj] + p[k - 1] + p[k] + p[k + 1] + p[k - 1 + sj] +
         p[k + sj] + p[k + 1 + sj];
}

// new = (sum over the i-1 plane + sum over the i plane + sum over the i+1 plane) / 27.
void twenty_seven_point(const tessera::BlockShape& s, const double* u, double* out) {
  const std::ptrdiff_t si = static_cast<std::ptrdiff_t>(s.stride_i());
  const std::ptrdiff_t sj = static_cast<std::ptrdiff_t>(s.stride_j());
  const int nx = s.cells[0], ny = s.cells[1], nz = s.cells[2];
  for (int i = 1; i <= nx; ++i)
    for (int j = 1; j <= ny; ++j) {
      const double* c = u + i * si + j * sj;
      for (int k = 1; k <= nz; ++k) {
        const double sb = plane_sum(c - si, sj, k);
        const double sm = plane_sum(c, sj, k);
        const double sf = plane_sum(c + si, sj, k);
        *out++ = (sb + sm + sf) / 27.0;
      }
    }
}

}  // namespace

void apply_stencil(const tessera::BlockShape& s, int points, double* block, int first, int vars) {
  thread_local std::vector<double> work;
  work.resize(s.interior_cells());
  for (int v = first; v < first + vars; ++v) {
    double* u = block + s.index(v, 0, 0, 0);
    if (points == 27)
      twenty_seven_point(s, u, work.data());
    else
      seven_point(s, u, work.data());
    const double* in = work.data();
    const int nz = s.cells[2];
    for (int i = 1; i <= s.cells[0]; ++i)
      for (int j = 1; j <= s.cells[1]; ++j) {
        double* row = u + s.index(0, i, j, 1);
        for (int k = 0; k < nz; ++k) row[k] = in[k];  // rows are short: no memmove call
        in += nz;
      }
  }
}

double block_sum(const tessera::BlockShape& s, const double* block, int v) {
  double sum = 0.0;
  for (int i = 1; i <= s.cells[0]; ++i)
    for (int j = 1; j <= s.cells[1]; ++j) {
      const double* row = block + s.index(v, i, j, 1);
      for (int k = 0; k < s.cells[2]; ++k) sum += row[k];
    }
  return sum;
}

}  // namespace miniamr
