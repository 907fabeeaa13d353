// euler's --refine-criterion pressure (apps/euler/refinement.hpp): the block maximum of
// |grad p| dx / p over the interior and the first face-ghost layer, without the face-ghost
// cells next to a block edge; unset edge ghosts never reach it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "euler/problems.hpp"
#include "euler/refinement.hpp"

namespace {

constexpr double kGamma = 1.4;

// A 3-D block of 4^3 cells with two ghost layers, at rest, density 1, pressure p0
// everywhere (edge and corner ghosts included); set_p changes one cell's pressure.
struct Block {
  tessera::BlockShape shape;
  std::vector<double> data;
  Block() {
    shape.cells = {4, 4, 4};
    shape.num_vars = euler::kVars;
    shape.group_size = euler::kVars;
    shape.ghost = {2, 2, 2};
    data.assign(shape.layout().size(), 0.0);
    for (int k = -2; k < 6; ++k)
      for (int j = -2; j < 6; ++j)
        for (int i = -2; i < 6; ++i) {
          at(euler::kRho, i, j, k) = 1;
          set_p(i, j, k, 1);
        }
  }
  double& at(int var, int i, int j, int k) {
    return data[static_cast<std::size_t>(shape.layout().index(var, i, j, k))];
  }
  void set_p(int i, int j, int k, double p) { at(euler::kEnergy, i, j, k) = p / (kGamma - 1); }
  double eps() const { return euler::pressure_indicator(shape, 3, data.data(), 0, kGamma); }
};

TEST(PressureIndicator, UniformPressureGivesZero) {
  Block b;
  EXPECT_EQ(b.eps(), 0.0);
}

TEST(PressureIndicator, InteriorJumpIsHalfTheDifferenceOverP) {
  Block b;
  b.set_p(1, 2, 2, 3);  // neighbours (0,2,2) and (2,2,2) see 0.5 * (3 - 1) / 1 = 1
  EXPECT_DOUBLE_EQ(b.eps(), 1.0);
  Block c;
  c.set_p(1, 2, 2, 0.5);  // the cell itself: 0 / 0.5; its neighbours 0.5 * 0.5 / 1
  EXPECT_DOUBLE_EQ(c.eps(), 0.25);
}

TEST(PressureIndicator, CombinesTheAxesAsAGradientNorm) {
  Block b;
  // Cell (1,1,1) sees +x and +y neighbours raised by 2: sqrt(1^2 + 1^2) / 1.
  b.set_p(2, 1, 1, 3);
  b.set_p(1, 2, 1, 3);
  EXPECT_NEAR(b.eps(), std::sqrt(2.0), 1e-15);
}

TEST(PressureIndicator, FirstFaceGhostLayerCounts) {
  // A jump two layers out (ghost layer 2) is seen only by the face-ghost cell at -1, as in
  // Athena++'s loop over is-1 .. ie+1.
  Block b;
  b.set_p(-2, 1, 2, 5);
  EXPECT_DOUBLE_EQ(b.eps(), 2.0);
  Block c;
  c.set_p(5, 2, 1, 5);  // the +x side
  EXPECT_DOUBLE_EQ(c.eps(), 2.0);
}

TEST(PressureIndicator, FaceGhostCellsNextToAnEdgeAndUnsetEdgeGhostsAreLeftOut) {
  // Ghost layer 2 beside face-ghost cell (-1, 0, 2): that cell is next to an edge, so it
  // is not scanned.
  Block b;
  b.set_p(-2, 0, 2, 5);
  EXPECT_EQ(b.eps(), 0.0);
  // Edge and corner ghosts are never read: garbage there changes nothing.
  Block c;
  c.set_p(-1, -1, 2, std::numeric_limits<double>::quiet_NaN());
  c.set_p(4, 4, 4, 1e300);
  c.set_p(-1, -1, -1, -7);
  EXPECT_EQ(c.eps(), 0.0);
}

TEST(PressureIndicator, MarksAsThresholdsSay) {
  // Athena++'s blast thresholds: refine above 0.5, may merge below 0.125.
  EXPECT_EQ(euler::refinement_wish(0.6, 0.5, 0.125), 1);
  EXPECT_EQ(euler::refinement_wish(0.5, 0.5, 0.125), 0);
  EXPECT_EQ(euler::refinement_wish(0.2, 0.5, 0.125), 0);
  EXPECT_EQ(euler::refinement_wish(0.1, 0.5, 0.125), -1);
}

}  // namespace
