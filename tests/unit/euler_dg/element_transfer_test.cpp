// dg::ElementTransfer, the elements' level transfer on the adaptive mesh: merge after split
// is the identity for all five variables; the coarse face's flux from the fine faces keeps
// their integral (what makes the corrected scheme conservative); correcting a coarse element
// for a flux change moves its integral by exactly the face term's amount.
#include "euler/dg/element_transfer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "euler/dg/tensor_ops.hpp"

namespace {

using namespace euler::dg;

// Integral over the unit cube (or face) of each variable's nodal values (Gauss weights).
std::vector<double> integrals(const NodalBasis& b, int rank, const std::vector<double>& u) {
  const int n = b.size(), size = tensor_size(n, rank);
  std::vector<double> sums(static_cast<std::size_t>(kNodeVars), 0.0);
  for (int v = 0; v < kNodeVars; ++v)
    for (int node = 0; node < size; ++node) {
      double w = 1;
      for (int a = 0, r = node; a < rank; ++a, r /= n)
        w *= b.weights()[static_cast<std::size_t>(r % n)];
      sums[static_cast<std::size_t>(v)] += w * u[static_cast<std::size_t>(v * size + node)];
    }
  return sums;
}

std::vector<double> some_values(std::size_t count) {
  std::vector<double> u(count);
  for (std::size_t i = 0; i < count; ++i) u[i] = 1 + std::sin(0.37 * static_cast<double>(i));
  return u;
}

TEST(ElementTransfer, MergeAfterSplitIsTheIdentity) {
  for (int dim = 2; dim <= 3; ++dim)
    for (int p : {1, 3, 6}) {
      const ElementTransfer t(p, dim);
      const auto size = static_cast<std::size_t>(kNodeVars * tensor_size(p + 1, dim));
      const std::vector<double> parent = some_values(size);
      std::vector<double> child(size), merged(size, 0.0);
      for (int c = 0; c < (1 << dim); ++c) {
        t.child_from_parent(parent.data(), c, child.data());
        t.add_child_to_parent(child.data(), c, merged.data());
      }
      for (std::size_t i = 0; i < size; ++i)
        ASSERT_NEAR(merged[i], parent[i], 1e-13) << "dim " << dim << " p " << p;
    }
}

TEST(ElementTransfer, CoarseFaceFluxKeepsTheFineFluxesIntegral) {
  for (int dim = 2; dim <= 3; ++dim)
    for (int p : {1, 3, 6}) {
      const ElementTransfer t(p, dim);
      const NodalBasis b(p);
      const auto face = static_cast<std::size_t>(t.face_flux_values());
      ASSERT_EQ(face, static_cast<std::size_t>(kNodeVars * tensor_size(p + 1, dim - 1)));
      std::vector<double> coarse(face, 0.0), fine_total(kNodeVars, 0.0);
      const int fine_faces = 1 << (dim - 1);
      for (int c = 0; c < fine_faces; ++c) {
        std::vector<double> fine = some_values(face);
        for (double& f : fine) f *= 1 + c;  // a different flux on each fine face
        t.add_fine_face_flux(0, c, fine.data(), coarse.data());
        const auto sums = integrals(b, dim - 1, fine);
        for (std::size_t v = 0; v < fine_total.size(); ++v) fine_total[v] += sums[v] / fine_faces;
      }
      const auto got = integrals(b, dim - 1, coarse);
      for (std::size_t v = 0; v < got.size(); ++v)
        EXPECT_NEAR(got[v], fine_total[v], 1e-13) << "dim " << dim << " p " << p;
    }
}

TEST(ElementTransfer, CorrectionMovesTheIntegralByTheFaceTerm) {
  const int dim = 3, p = 3;
  const ElementTransfer t(p, dim);
  const NodalBasis b(p);
  const auto size = static_cast<std::size_t>(kNodeVars * tensor_size(p + 1, dim));
  const std::vector<double> change = some_values(static_cast<std::size_t>(t.face_flux_values()));
  const auto face_integral = integrals(b, dim - 1, change);
  for (int side = 0; side < 2; ++side) {
    std::vector<double> u = some_values(size);
    const auto before = integrals(b, dim, u);
    t.correct_cell(1, side, change.data(), 0.25, u.data());
    const auto after = integrals(b, dim, u);
    // The upper face's outflow lowers the element's integral, the lower face's raises it.
    const double sign = side == 1 ? -1 : 1;
    for (std::size_t v = 0; v < before.size(); ++v)
      EXPECT_NEAR(after[v] - before[v], sign * 0.25 * face_integral[v], 1e-13);
  }
}

}  // namespace
