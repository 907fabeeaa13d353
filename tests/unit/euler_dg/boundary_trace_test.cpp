// The outer traces of DG walls: outflow copies the inner trace; reflecting gives the trace of
// the mirror-image state (normal momentum negated) and its own normal flux, so that the wall
// passes no mass or energy.
#include "euler/dg/boundary_trace.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "euler/dg/ader_element.hpp"
#include "euler/dg/node_physics.hpp"

namespace {

using namespace euler::dg;
using Size = std::size_t;

/// A face trace (face_trace_size layout) whose node i holds state s_i and its flux along axis.
std::vector<double> trace_of(const std::vector<State>& nodes, int axis, double gamma) {
  const Size m = nodes.size();
  std::vector<double> t(2 * kNodeVars * m);
  for (Size i = 0; i < m; ++i) {
    const State f = physical_flux(nodes[i], axis, gamma);
    for (Size v = 0; v < kNodeVars; ++v) {
      t[v * m + i] = nodes[i][v];
      t[(kNodeVars + v) * m + i] = f[v];
    }
  }
  return t;
}

TEST(BoundaryTrace, ReflectingIsTheMirrorStateAndItsFluxOutflowTheSame) {
  const double gamma = 1.4;
  const int n = 3, dim = 3;
  std::vector<State> nodes;
  for (int i = 0; i < n * n; ++i)
    nodes.push_back({1.0 + 0.1 * i, 0.3 - 0.05 * i, -0.2 + 0.03 * i, 0.1 * i, 3.0 + 0.2 * i});
  for (int axis = 0; axis < dim; ++axis) {
    const std::vector<double> inner = trace_of(nodes, axis, gamma);
    ASSERT_EQ(inner.size(), static_cast<Size>(face_trace_size(n, dim)));
    std::vector<State> mirrored = nodes;
    for (State& s : mirrored) s[static_cast<Size>(1 + axis)] = -s[static_cast<Size>(1 + axis)];
    const std::vector<double> want = trace_of(mirrored, axis, gamma);
    std::vector<double> outer(inner.size());
    boundary_trace(n, dim, axis, BoundaryTrace::reflecting, inner.data(), outer.data());
    for (Size k = 0; k < outer.size(); ++k) EXPECT_NEAR(outer[k], want[k], 1e-15) << k;
    // The Rusanov flux through the wall carries no mass and no energy.
    std::vector<double> flux(inner.size() / 2);
    ASSERT_TRUE(
        face_flux(n, dim, axis, inner.data(), outer.data(), gamma, FaceFlux::rusanov, flux.data()));
    const Size m = nodes.size();
    for (Size i = 0; i < m; ++i) {
      EXPECT_EQ(flux[i], 0.0);
      EXPECT_EQ(flux[4 * m + i], 0.0);
    }
    boundary_trace(n, dim, axis, BoundaryTrace::outflow, inner.data(), outer.data());
    EXPECT_EQ(outer, inner);
  }
}

}  // namespace
