// ADER-DG on a uniform periodic mesh: the measured order of convergence on the smooth
// problems with exact solutions, conservation to round-off, and a uniform state kept.
#include <gtest/gtest.h>

#include <cmath>

#include "euler/dg/periodic_mesh.hpp"

namespace {

using namespace euler::dg;

/// Runs `problem` to t_end on elements^dim elements and returns the density errors.
PeriodicMesh::Errors run(SmoothProblem problem, int dim, int order, int elements, double t_end,
                         FaceFlux flux = FaceFlux::rusanov, double cfl = 0.3) {
  PeriodicMeshSpec spec;
  spec.dim = dim;
  spec.order = order;
  spec.elements = {elements, elements, elements};
  spec.box = problem_box(problem, dim);
  spec.flux = flux;
  PeriodicMesh mesh(spec);
  mesh.fill([&](const std::array<double, 3>& x) { return exact_state(problem, dim, x, 0); });
  double t = 0;
  while (t < t_end) {
    const double dt = std::min(mesh.stable_dt(cfl), t_end - t);
    EXPECT_GT(dt, 0);
    if (!(dt > 0) || !mesh.step(dt)) return {INFINITY, INFINITY};
    t += dt;
  }
  return mesh.density_errors(
      [&](const std::array<double, 3>& x) { return exact_state(problem, dim, x, t_end); });
}

double order_between(const PeriodicMesh::Errors& coarse, const PeriodicMesh::Errors& fine) {
  return std::log2(coarse.l2 / fine.l2);
}

/// One convergence measurement: degree, numerical flux, the coarse mesh (elements per axis;
/// the fine one has twice as many) and the end time. The meshes are the smallest pairs whose
/// errors are in the asymptotic range (measured; coarser pairs are pre-asymptotic, e.g. the
/// vortex at p = 3 on 8 -> 16 elements gives 2.9): the order of each pair is p + 1 within 0.3.
struct Case {
  int order;
  FaceFlux flux;
  int coarse;
  double t_end;
};

void expect_order(SmoothProblem problem, int dim, const Case& c) {
  const auto e1 = run(problem, dim, c.order, c.coarse, c.t_end, c.flux);
  const auto e2 = run(problem, dim, c.order, 2 * c.coarse, c.t_end, c.flux);
  EXPECT_GE(order_between(e1, e2), c.order + 0.7)
      << "p " << c.order << " errors " << e1.l2 << " " << e2.l2;
  EXPECT_LE(e2.l1, e2.l2 * 1.0001) << "p " << c.order;  // a mean of |e| is at most the RMS
}

TEST(AderPeriodic, DensityWave2dConvergesWithOrderPPlusOne) {
  for (const Case& c : {Case{1, FaceFlux::rusanov, 8, 0.1}, Case{2, FaceFlux::hllc, 4, 0.1},
                        Case{3, FaceFlux::rusanov, 4, 0.1}, Case{4, FaceFlux::hllc, 4, 0.05}})
    expect_order(SmoothProblem::density_wave, 2, c);
}

TEST(AderPeriodic, DensityWave3dConvergesWithOrderPPlusOne) {
  expect_order(SmoothProblem::density_wave, 3, Case{1, FaceFlux::rusanov, 4, 0.05});
}

TEST(AderPeriodic, IsentropicVortexConvergesWithOrderPPlusOne) {
  for (const Case& c : {Case{1, FaceFlux::rusanov, 16, 0.1}, Case{2, FaceFlux::rusanov, 8, 0.1},
                        Case{3, FaceFlux::rusanov, 16, 0.1}, Case{4, FaceFlux::rusanov, 8, 0.1}})
    expect_order(SmoothProblem::isentropic_vortex, 2, c);
}

TEST(AderPeriodic, ConservesMassMomentumAndEnergyToRoundOff) {
  for (const auto flux : {FaceFlux::rusanov, FaceFlux::hllc}) {
    PeriodicMeshSpec spec;
    spec.dim = 3;
    spec.order = 3;
    spec.elements = {3, 2, 2};
    spec.box = problem_box(SmoothProblem::smooth_blobs, 3);
    spec.flux = flux;
    PeriodicMesh mesh(spec);
    mesh.fill([](const std::array<double, 3>& x) {
      return exact_state(SmoothProblem::smooth_blobs, 3, x, 0);
    });
    const State before = mesh.totals();
    for (int s = 0; s < 5; ++s) ASSERT_TRUE(mesh.step(mesh.stable_dt(0.5)));
    const State after = mesh.totals();
    for (std::size_t v = 0; v < kNodeVars; ++v)
      EXPECT_NEAR(after[v], before[v], 1e-13 * std::max(1.0, std::abs(before[v])))
          << "variable " << v;
  }
}

TEST(AderPeriodic, KeepsAUniformStateToRoundOff) {
  PeriodicMeshSpec spec;
  spec.dim = 2;
  spec.order = 5;
  spec.elements = {3, 4, 1};
  spec.box = problem_box(SmoothProblem::density_wave, 2);
  PeriodicMesh mesh(spec);
  const State uniform{1.3, 0.4, -0.7, 0, 3.1};
  mesh.fill([&](const std::array<double, 3>&) { return uniform; });
  for (int s = 0; s < 5; ++s) ASSERT_TRUE(mesh.step(mesh.stable_dt(0.5)));
  const auto& u = mesh.data();
  const std::size_t nodes = mesh.element_size() / kNodeVars;
  for (std::size_t i = 0; i < u.size(); ++i)
    EXPECT_NEAR(u[i], uniform[(i / nodes) % kNodeVars], 1e-14);
}

TEST(AderPeriodic, StopsOnANonPositivePressure) {
  PeriodicMeshSpec spec;
  spec.dim = 2;
  spec.order = 2;
  spec.elements = {2, 2, 1};
  spec.box = problem_box(SmoothProblem::density_wave, 2);
  PeriodicMesh mesh(spec);
  mesh.fill([](const std::array<double, 3>& x) {
    return State{1, 0, 0, 0, x[0] < 0.5 ? 2.5 : -1.0};  // negative energy: p < 0
  });
  EXPECT_EQ(mesh.stable_dt(0.3), 0);
  EXPECT_FALSE(mesh.step(1e-3));
}

}  // namespace
