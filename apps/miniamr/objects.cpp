// miniAMR's object/block intersection test. Every comparison (strict or not) and every
// floating-point expression is evaluated in the same order as in the reference, so that
// borderline blocks are decided the same way and block counts match exactly.
//
// Contracting a*b + c into a fused multiply-add would change roundings of the normalised
// distances; keep each operation separately rounded like the reference build does.
#pragma GCC optimize("fp-contract=off")

#include "objects.hpp"

#include <cmath>

namespace tessera {

namespace {

// Square of the normalised distance ((p - c) / s)^2 along one axis.
double sq(double p, double c, double s) {
  const double t = (p - c) / s;
  return t * t;
}

// Position of the object centre relative to a block along one axis: inside (both ends
// included), or outside with `near` = the index of the nearer block face (0 low, 1 high).
// For a centre inside, `near` is the face on the centre's side of the midpoint when
// `use_midpoint` (surface tests), so the far corner is cor[axis][1 - near].
struct AxisPosition {
  bool inside;
  int near;
};

AxisPosition position(double c, double lo, double hi, bool use_midpoint) {
  if (c < lo) return {false, 0};
  if (c > hi) return {false, 1};
  if (!use_midpoint) return {true, 0};
  return {true, c < (lo + hi) / 2.0 ? 0 : 1};
}

// True if the block straddles exactly one of the two planes at c - s and c + s along x.
bool straddles_one(double lo, double hi, double c, double s) {
  return (lo < c - s && hi < c + s) || (lo > c - s && hi > c + s);
}

bool overlaps(double lo, double hi, double c, double s) {
  return hi > c - s && lo < c + s;
}

// The nearest point of the block lies strictly inside the (2-D or 3-D) ellipsoid with
// semi-axes s over `axes`: every axis with the centre inside contributes 0.
bool near_inside(const UnitBox& cor, const RefineObject& o, const int* axes, int n,
                 const AxisPosition* pos) {
  int outside[3];
  int count = 0;
  for (int i = 0; i < n; ++i)
    if (!pos[i].inside) outside[count++] = i;
  if (count == 0) return true;
  if (count == 1) {
    const int a = axes[outside[0]];
    return std::fabs(cor[a][pos[outside[0]].near] - o.center[a]) < o.size[a];
  }
  double q = 0;
  for (int k = 0; k < count; ++k) {
    const int a = axes[outside[k]];
    const double t = sq(cor[a][pos[outside[k]].near], o.center[a], o.size[a]);
    q = k == 0 ? t : q + t;
  }
  return q < 1.0;
}

// The block corner farthest from the centre lies strictly outside the ellipsoid.
bool far_outside(const UnitBox& cor, const RefineObject& o, const int* axes, int n,
                 const AxisPosition* pos) {
  double q = 0;
  for (int i = 0; i < n; ++i) {
    const int a = axes[i];
    const double t = sq(cor[a][1 - pos[i].near], o.center[a], o.size[a]);
    q = i == 0 ? t : q + t;
  }
  return q > 1.0;
}

bool box_surface(const UnitBox& cor, const RefineObject& o) {
  const auto& c = o.center;
  const auto& s = o.size;
  if (!overlaps(cor[0][0], cor[0][1], c[0], s[0])) return false;
  if (straddles_one(cor[0][0], cor[0][1], c[0], s[0]))
    return overlaps(cor[1][0], cor[1][1], c[1], s[1]) && overlaps(cor[2][0], cor[2][1], c[2], s[2]);
  if (overlaps(cor[1][0], cor[1][1], c[1], s[1]))
    return straddles_one(cor[1][0], cor[1][1], c[1], s[1]) &&
           overlaps(cor[2][0], cor[2][1], c[2], s[2]);
  // Reference quirk: a block outside the box along y can still match here.
  return overlaps(cor[2][0], cor[2][1], c[2], s[2]) &&
         straddles_one(cor[2][0], cor[2][1], c[2], s[2]);
}

bool box_volume(const UnitBox& cor, const RefineObject& o) {
  for (int a = 0; a < 3; ++a)
    if (!overlaps(cor[a][0], cor[a][1], o.center[a], o.size[a])) return false;
  return true;
}

// Hemispheroids keep the match unless the whole block lies on the excluded side of the
// plane through the centre. Types 4/5: keep +x, 6/7: keep -x, 8/9: +y, 10/11: -y, 12/13: +z,
// 14/15: -z.
bool excluded_half(const UnitBox& cor, const RefineObject& o) {
  const int half = (o.type - 4) / 2;  // 0 x+, 1 x-, 2 y+, 3 y-, 4 z+, 5 z-
  const int a = half / 2;
  return half % 2 == 0 ? cor[a][1] < o.center[a] : cor[a][0] > o.center[a];
}

bool spheroid(const UnitBox& cor, const RefineObject& o, bool surface) {
  static constexpr int kAxes[3] = {0, 1, 2};
  AxisPosition pos[3];
  for (int a = 0; a < 3; ++a) pos[a] = position(o.center[a], cor[a][0], cor[a][1], surface);
  bool hit = near_inside(cor, o, kAxes, 3, pos);
  if (hit && surface) hit = far_outside(cor, o, kAxes, 3, pos);
  if (hit && o.type >= 4) hit = !excluded_half(cor, o);
  return hit;
}

bool cylinder(const UnitBox& cor, const RefineObject& o) {
  const int axis = (o.type - 20) / 2;
  const bool surface = o.type % 2 == 0;
  const int cross[2] = {(axis + 1) % 3, (axis + 2) % 3};
  if (!overlaps(cor[axis][0], cor[axis][1], o.center[axis], o.size[axis])) return false;
  AxisPosition pos[2];
  for (int i = 0; i < 2; ++i)
    pos[i] = position(o.center[cross[i]], cor[cross[i]][0], cor[cross[i]][1], surface);
  if (!surface) return near_inside(cor, o, cross, 2, pos);
  // Reference quirk: the end caps are tested along x whatever the cylinder's axis.
  if (straddles_one(cor[0][0], cor[0][1], o.center[0], o.size[0]))
    return near_inside(cor, o, cross, 2, pos);
  return near_inside(cor, o, cross, 2, pos) && far_outside(cor, o, cross, 2, pos);
}

bool intersects(const RefineObject& o, const UnitBox& cor) {
  if (o.type == 0) return box_surface(cor, o);
  if (o.type == 1) return box_volume(cor, o);
  if (o.type >= 2 && o.type <= 15) return spheroid(cor, o, o.type % 2 == 0);
  if (o.type >= 20 && o.type <= 25) return cylinder(cor, o);
  return false;
}

}  // namespace

bool object_type_defined(int type) {
  return (type >= 0 && type <= 15) || (type >= 20 && type <= 25);
}

std::string object_type_name(int type) {
  static const char* const kHalves[6] = {"x+", "x-", "y+", "y-", "z+", "z-"};
  static const char* const kAxes[3] = {"x", "y", "z"};
  const std::string kind = type % 2 == 0 ? "surface" : "volume";
  if (type == 0 || type == 1) return kind + " of a rectangle";
  if (type == 2 || type == 3) return kind + " of a spheroid";
  if (type >= 4 && type <= 15) return kind + " of " + kHalves[(type - 4) / 2] + " hemispheroid";
  if (type >= 20 && type <= 25) return kind + " of " + kAxes[(type - 20) / 2] + " axis cylinder";
  return "undefined object";
}

bool objects_intersect(std::span<const RefineObject> objects, const UnitBox& box) {
  for (const RefineObject& o : objects) {
    if (o.size[0] < 0.0 || o.size[1] < 0.0 || o.size[2] < 0.0) continue;
    if (intersects(o, box)) return true;
  }
  return false;
}

void move_objects(std::span<RefineObject> objects, double delta) {
  for (RefineObject& o : objects)
    for (int a = 0; a < 3; ++a) {
      o.center[a] += delta * o.move[a];
      o.size[a] += delta * o.growth[a];
      // Bounce 2 is meant to reflect the object's edge; in the reference a dangling
      // `else` makes that branch unreachable, so it behaves like bounce 0.
      if (o.bounce == 1) {
        if (o.center[a] >= 1.0) {
          o.center[a] = 2.0 - o.center[a];
          o.move[a] = -o.move[a];
        } else if (o.center[a] <= 0.0) {
          o.center[a] = 0.0 - o.center[a];
          o.move[a] = -o.move[a];
        }
      }
    }
}

}  // namespace tessera
