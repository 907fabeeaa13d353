#include "boundary_trace.hpp"

#include <algorithm>
#include <cstddef>

#include "ader_element.hpp"

namespace euler::dg {

void boundary_trace(int n, int dim, int axis, BoundaryTrace kind, const double* inner,
                    double* outer) {
  using Size = std::size_t;
  const auto size = static_cast<Size>(face_trace_size(n, dim));
  std::copy(inner, inner + size, outer);
  if (kind == BoundaryTrace::outflow) return;
  const Size nodes = size / (2 * kNodeVars);
  const auto normal = static_cast<Size>(1 + axis);
  double* q = outer;
  double* flux = outer + size / 2;
  for (Size v = 0; v < kNodeVars; ++v)
    for (Size i = 0; i < nodes; ++i) {
      if (v == normal) {
        q[v * nodes + i] = -q[v * nodes + i];
      } else {
        flux[v * nodes + i] = -flux[v * nodes + i];
      }
    }
}

}  // namespace euler::dg
