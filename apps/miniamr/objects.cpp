// miniAMR's object/block test, comparison by comparison and in the reference's floating-point
// order (objects.hpp). No fused multiply-adds: the reference build rounds every operation.
#pragma GCC optimize("fp-contract=off")

#include "objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tessera {

namespace {

// Square of the normalised distance ((p - c) / s)^2 along axis a of the block's face `side`.
double sq(const UnitBox& cor, const RefineObject& o, int a, int side) {
  const double t = (cor[a][side] - o.center[a]) / o.size[a];
  return t * t;
}

// The object centre along one axis of a block: inside (ends included), or outside with `near`
// the nearer face (0 low, 1 high); inside, `near` is the face on the centre's side of the
// midpoint when `use_midpoint` (surface tests), so the far corner is cor[axis][1 - near].
struct AxisPosition {
  bool inside;
  int near;
};

AxisPosition position(const UnitBox& cor, const RefineObject& o, int a, bool use_midpoint) {
  const double c = o.center[a], lo = cor[a][0], hi = cor[a][1];
  if (c < lo) return {false, 0};
  if (c > hi) return {false, 1};
  if (!use_midpoint) return {true, 0};
  return {true, c < (lo + hi) / 2.0 ? 0 : 1};
}

// True if the block straddles exactly one of the object's two planes along axis a.
bool straddles_one(const UnitBox& cor, const RefineObject& o, int a) {
  const double lo = cor[a][0], hi = cor[a][1], c = o.center[a], s = o.size[a];
  return (lo < c - s && hi < c + s) || (lo > c - s && hi > c + s);
}

bool overlaps(const UnitBox& cor, const RefineObject& o, int a) {
  return cor[a][1] > o.center[a] - o.size[a] && cor[a][0] < o.center[a] + o.size[a];
}

// The nearest point of the block lies strictly inside the (2-D or 3-D) ellipsoid with
// semi-axes s over `axes`: every axis with the centre inside contributes 0; with one axis
// outside the reference compares the distance, not its square.
bool near_inside(const UnitBox& cor, const RefineObject& o, const int* axes, int n,
                 const AxisPosition* pos) {
  int outside = 0, last = 0;
  double q = 0;
  for (int i = 0; i < n; ++i)
    if (!pos[i].inside) {
      q += sq(cor, o, axes[i], pos[i].near);
      ++outside;
      last = i;
    }
  const int a = axes[last];
  if (outside == 1) return std::fabs(cor[a][pos[last].near] - o.center[a]) < o.size[a];
  return outside == 0 || q < 1.0;
}

// The block corner farthest from the centre lies strictly outside the ellipsoid.
bool far_outside(const UnitBox& cor, const RefineObject& o, const int* axes, int n,
                 const AxisPosition* pos) {
  double q = 0;
  for (int i = 0; i < n; ++i) q += sq(cor, o, axes[i], 1 - pos[i].near);
  return q > 1.0;
}

bool box_surface(const UnitBox& cor, const RefineObject& o) {
  if (!overlaps(cor, o, 0)) return false;
  if (straddles_one(cor, o, 0)) return overlaps(cor, o, 1) && overlaps(cor, o, 2);
  if (overlaps(cor, o, 1)) return straddles_one(cor, o, 1) && overlaps(cor, o, 2);
  // Reference quirk: a block outside the box along y can still match here.
  return overlaps(cor, o, 2) && straddles_one(cor, o, 2);
}

// A hemispheroid misses a block wholly on the excluded side of the plane through its centre.
// Types 4/5 keep +x, 6/7 -x, 8/9 +y, 10/11 -y, 12/13 +z, 14/15 -z.
bool excluded_half(const UnitBox& cor, const RefineObject& o) {
  const int half = (o.type - 4) / 2;  // 0 x+, 1 x-, 2 y+, 3 y-, 4 z+, 5 z-
  const int a = half / 2;
  return half % 2 == 0 ? cor[a][1] < o.center[a] : cor[a][0] > o.center[a];
}

bool spheroid(const UnitBox& cor, const RefineObject& o, bool surface) {
  static constexpr int kAxes[3] = {0, 1, 2};
  AxisPosition pos[3];
  for (int a = 0; a < 3; ++a) pos[a] = position(cor, o, a, surface);
  return near_inside(cor, o, kAxes, 3, pos) && (!surface || far_outside(cor, o, kAxes, 3, pos)) &&
         (o.type < 4 || !excluded_half(cor, o));
}

bool cylinder(const UnitBox& cor, const RefineObject& o) {
  const int axis = (o.type - 20) / 2;
  const bool surface = o.type % 2 == 0;
  const int cross[2] = {(axis + 1) % 3, (axis + 2) % 3};
  if (!overlaps(cor, o, axis)) return false;
  const AxisPosition pos[2] = {position(cor, o, cross[0], surface),
                               position(cor, o, cross[1], surface)};
  // Reference quirk: the end caps are tested along x whatever the cylinder's axis.
  return near_inside(cor, o, cross, 2, pos) &&
         (!surface || straddles_one(cor, o, 0) || far_outside(cor, o, cross, 2, pos));
}

bool intersects(const RefineObject& o, const UnitBox& cor) {
  if (o.type == 0) return box_surface(cor, o);
  if (o.type == 1) return overlaps(cor, o, 0) && overlaps(cor, o, 1) && overlaps(cor, o, 2);
  if (o.type >= 2 && o.type <= 15) return spheroid(cor, o, o.type % 2 == 0);
  if (o.type >= 20 && o.type <= 25) return cylinder(cor, o);
  return false;
}

}  // namespace

bool object_type_defined(int type) {
  return (type >= 0 && type <= 15) || (type >= 20 && type <= 25);
}

std::string object_type_name(int type) {
  static const char* const kShapes[11] = {
      "a rectangle",     "a spheroid",      "x+ hemispheroid", "x- hemispheroid",
      "y+ hemispheroid", "y- hemispheroid", "z+ hemispheroid", "z- hemispheroid",
      "x axis cylinder", "y axis cylinder", "z axis cylinder"};  // by type / 2, 20.. as 16..
  if (!object_type_defined(type)) return "undefined object";
  return fmt::format("{} of {}", type % 2 == 0 ? "surface" : "volume",
                     kShapes[(type < 20 ? type : type - 4) / 2]);
}

bool objects_intersect(std::span<const RefineObject> objects, const UnitBox& box) {
  return std::any_of(objects.begin(), objects.end(), [&](const RefineObject& o) {
    return !(o.size[0] < 0.0 || o.size[1] < 0.0 || o.size[2] < 0.0) && intersects(o, box);
  });
}

void move_objects(std::span<RefineObject> objects, double delta) {
  for (RefineObject& o : objects)
    for (int a = 0; a < 3; ++a) {
      o.center[a] += delta * o.move[a];
      o.size[a] += delta * o.growth[a];
      // Bounce 2 is meant to reflect the object's edge; in the reference a dangling
      // `else` makes that branch unreachable, so it behaves like bounce 0.
      if (o.bounce == 1 && (o.center[a] >= 1.0 || o.center[a] <= 0.0)) {
        o.center[a] = (o.center[a] >= 1.0 ? 2.0 : 0.0) - o.center[a];
        o.move[a] = -o.move[a];
      }
    }
}

}  // namespace tessera
