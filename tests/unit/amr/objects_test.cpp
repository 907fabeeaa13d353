// miniAMR's object tests and motion, including the reference's quirks that block counts
// depend on.
#include <gtest/gtest.h>

#include <vector>

#include "miniamr/objects.hpp"

namespace tessera {
namespace {

RefineObject object(int type, std::array<double, 3> center, std::array<double, 3> size,
                    int bounce = 0) {
  RefineObject o;
  o.type = type;
  o.bounce = bounce;
  o.center = center;
  o.size = size;
  return o;
}

UnitBox box(double x0, double x1, double y0, double y1, double z0, double z1) {
  return {{{x0, x1}, {y0, y1}, {z0, z1}}};
}

bool hits(const RefineObject& o, const UnitBox& b) {
  const std::vector<RefineObject> list{o};
  return objects_intersect(list, b);
}

TEST(ObjectsTest, SolidSpheroidHitsBlocksWhoseNearestPointIsInside) {
  const RefineObject ball = object(3, {0.5, 0.5, 0.5}, {0.25, 0.25, 0.25});
  EXPECT_TRUE(hits(ball, box(0.4, 0.6, 0.4, 0.6, 0.4, 0.6)));       // contains the centre
  EXPECT_TRUE(hits(ball, box(0.0, 0.5, 0.0, 0.5, 0.0, 0.5)));       // corner at the centre
  EXPECT_TRUE(hits(ball, box(0.65, 0.8, 0.45, 0.55, 0.45, 0.55)));  // face 0.15 away
  EXPECT_FALSE(hits(ball, box(0.75, 1.0, 0.75, 1.0, 0.75, 1.0)));   // nearest corner outside
  EXPECT_FALSE(hits(ball, box(0.75, 0.8, 0.4, 0.6, 0.4, 0.6)));     // touches: strictly inside only
}

TEST(ObjectsTest, SpheroidSurfaceNeedsNearPointInsideAndFarCornerOutside) {
  const RefineObject shell = object(2, {0.5, 0.5, 0.5}, {0.3, 0.3, 0.3});
  EXPECT_FALSE(hits(shell, box(0.45, 0.55, 0.45, 0.55, 0.45, 0.55)));  // wholly inside
  EXPECT_TRUE(hits(shell, box(0.5, 1.0, 0.5, 1.0, 0.5, 1.0)));         // straddles the surface
  EXPECT_FALSE(hits(shell, box(0.9, 1.0, 0.9, 1.0, 0.9, 1.0)));        // wholly outside
  // Semi-axes differ per axis: the surface is x^2/a^2 + y^2/b^2 + z^2/c^2 = 1.
  const RefineObject flat = object(2, {0.5, 0.5, 0.5}, {0.4, 0.1, 0.1});
  EXPECT_TRUE(hits(flat, box(0.8, 0.95, 0.45, 0.55, 0.45, 0.55)));
  EXPECT_FALSE(hits(flat, box(0.45, 0.55, 0.65, 0.75, 0.45, 0.55)));
}

TEST(ObjectsTest, HemispheroidsDropBlocksOnTheExcludedSide) {
  const RefineObject plus_x = object(5, {0.5, 0.5, 0.5}, {0.3, 0.3, 0.3});
  EXPECT_TRUE(hits(plus_x, box(0.5, 0.6, 0.45, 0.55, 0.45, 0.55)));
  EXPECT_FALSE(hits(plus_x, box(0.3, 0.45, 0.45, 0.55, 0.45, 0.55)));
  const RefineObject minus_z = object(15, {0.5, 0.5, 0.5}, {0.3, 0.3, 0.3});
  EXPECT_TRUE(hits(minus_z, box(0.45, 0.55, 0.45, 0.55, 0.3, 0.4)));
  EXPECT_FALSE(hits(minus_z, box(0.45, 0.55, 0.45, 0.55, 0.6, 0.7)));
  // Surface variant: the -y half only.
  const RefineObject minus_y_shell = object(10, {0.5, 0.5, 0.5}, {0.3, 0.3, 0.3});
  EXPECT_TRUE(hits(minus_y_shell, box(0.45, 0.55, 0.1, 0.25, 0.45, 0.55)));
  EXPECT_FALSE(hits(minus_y_shell, box(0.45, 0.55, 0.75, 0.9, 0.45, 0.55)));
}

TEST(ObjectsTest, SolidBoxNeedsStrictOverlapOnEveryAxis) {
  const RefineObject b = object(1, {0.5, 0.5, 0.5}, {0.1, 0.2, 0.3});
  EXPECT_TRUE(hits(b, box(0.55, 0.7, 0.0, 0.4, 0.0, 0.3)));
  EXPECT_FALSE(hits(b, box(0.6, 0.7, 0.0, 0.4, 0.0, 0.3)));  // touches x = 0.6 only
}

TEST(ObjectsTest, BoxSurfaceReproducesTheReferenceQuirks) {
  const RefineObject b = object(0, {0.5, 0.5, 0.5}, {0.2, 0.2, 0.2});
  // A block straddling the x = 0.3 face inside the box's y/z extent.
  EXPECT_TRUE(hits(b, box(0.25, 0.35, 0.45, 0.55, 0.45, 0.55)));
  // A block containing the whole box never matches.
  EXPECT_FALSE(hits(b, box(0.0, 1.0, 0.0, 1.0, 0.0, 1.0)));
  // A block inside the box along x, outside it along y, straddling a z face: the
  // reference matches it although it does not touch the box.
  EXPECT_TRUE(hits(b, box(0.45, 0.55, 0.8, 0.9, 0.65, 0.75)));
}

TEST(ObjectsTest, CylinderSurfaceTestsItsEndsAlongXWhateverItsAxis) {
  // y-axis cylinder of radius 0.1 spanning y in [0.2, 0.8].
  const RefineObject y_cylinder = object(22, {0.5, 0.5, 0.5}, {0.1, 0.3, 0.1});
  // A block across the curved surface, between the ends.
  EXPECT_TRUE(hits(y_cylinder, box(0.55, 0.65, 0.4, 0.6, 0.45, 0.55)));
  // A block inside the tube near the y = 0.8 cap: the reference decides "cap" along x, so
  // this block, which does not straddle an x plane at 0.4/0.6, needs the curved surface
  // and does not match.
  EXPECT_FALSE(hits(y_cylinder, box(0.47, 0.53, 0.75, 0.85, 0.47, 0.53)));
  // The same block straddling the x = 0.4 plane matches through the cap rule.
  EXPECT_TRUE(hits(y_cylinder, box(0.35, 0.45, 0.75, 0.85, 0.47, 0.53)));
  // Solid z cylinder: overlap along z, then the nearest point of the cross-section.
  const RefineObject z_solid = object(25, {0.5, 0.5, 0.5}, {0.2, 0.2, 0.3});
  EXPECT_TRUE(hits(z_solid, box(0.6, 0.65, 0.6, 0.65, 0.7, 0.9)));
  EXPECT_FALSE(hits(z_solid, box(0.6, 0.65, 0.6, 0.65, 0.8, 0.9)));
  EXPECT_FALSE(hits(z_solid, box(0.68, 0.8, 0.68, 0.8, 0.4, 0.6)));
}

TEST(ObjectsTest, NegativeSizeDisablesAnObjectAndTheFirstMatchWins) {
  RefineObject off = object(3, {0.5, 0.5, 0.5}, {0.2, -0.1, 0.2});
  EXPECT_FALSE(hits(off, box(0.4, 0.6, 0.4, 0.6, 0.4, 0.6)));
  const std::vector<RefineObject> two{off, object(3, {0.5, 0.5, 0.5}, {0.2, 0.2, 0.2})};
  EXPECT_TRUE(objects_intersect(two, box(0.4, 0.6, 0.4, 0.6, 0.4, 0.6)));
}

TEST(ObjectsTest, OnlyTheReferenceTypesAreDefined) {
  for (int t = 0; t <= 15; ++t) EXPECT_TRUE(object_type_defined(t)) << t;
  for (int t = 16; t <= 19; ++t) EXPECT_FALSE(object_type_defined(t)) << t;
  for (int t = 20; t <= 25; ++t) EXPECT_TRUE(object_type_defined(t)) << t;
  EXPECT_FALSE(object_type_defined(26));
  EXPECT_FALSE(object_type_defined(-1));
  EXPECT_EQ(object_type_name(7), "volume of x- hemispheroid");
  EXPECT_EQ(object_type_name(24), "surface of z axis cylinder");
}

TEST(ObjectsTest, MotionFollowsTheReferenceBounceRules) {
  std::vector<RefineObject> objs(3);
  objs[0] = object(2, {0.95, 0.5, 0.02}, {0.1, 0.1, 0.1}, 1);
  objs[0].move = {0.1, 0.0, -0.05};
  objs[0].growth = {0.01, 0.0, -0.01};
  objs[1] = object(2, {0.95, 0.5, 0.5}, {0.1, 0.1, 0.1}, 2);  // edge bounce: a no-op
  objs[1].move = {0.1, 0.0, 0.0};
  objs[2] = object(2, {-1.1, 0.5, 0.5}, {0.1, 0.1, 0.1}, 1);  // starts outside
  objs[2].move = {0.03, 0.0, 0.0};
  move_objects(objs, 1.0);
  EXPECT_DOUBLE_EQ(objs[0].center[0], 2.0 - (0.95 + 0.1));  // reflected at x = 1
  EXPECT_DOUBLE_EQ(objs[0].move[0], -0.1);
  EXPECT_DOUBLE_EQ(objs[0].center[2], 0.0 - (0.02 - 0.05));  // reflected at z = 0
  EXPECT_DOUBLE_EQ(objs[0].move[2], 0.05);
  EXPECT_DOUBLE_EQ(objs[0].size[0], 0.11);
  EXPECT_DOUBLE_EQ(objs[0].size[2], 0.09);
  EXPECT_DOUBLE_EQ(objs[1].center[0], 0.95 + 0.1);  // left the domain
  EXPECT_DOUBLE_EQ(objs[1].move[0], 0.1);
  EXPECT_DOUBLE_EQ(objs[2].center[0], -(-1.1 + 0.03));  // reflected into +x at once
  EXPECT_DOUBLE_EQ(objs[2].move[0], -0.03);
}

}  // namespace
}  // namespace tessera
