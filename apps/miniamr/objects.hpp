#pragma once
// Refinement objects of miniAMR (app code, apps/miniamr): moving, growing shapes whose surface or
// volume decides where the mesh is refined. The intersection test reproduces the
// reference miniAMR's arithmetic and comparisons exactly, including its known quirks
// (see docs/apps/miniamr.md), because block counts must match the reference.

#include <array>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace tessera {

/// One object: `type` 0..15 or 20..25 (see object_type_name), `bounce` 0/1/2, centre,
/// velocity per timestep, half-extent ("size") and growth per timestep. An object with any
/// negative size takes no part in refinement.
struct RefineObject {
  int type = 0, bounce = 0;
  std::array<double, 3> center{}, move{}, size{}, growth{};
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RefineObject, type, bounce, center, move, size, growth)

/// An axis-aligned box in the unit cube: [axis][0 = low, 1 = high].
using UnitBox = std::array<std::array<double, 2>, 3>;

/// True for the object types the reference defines: 0..15 and 20..25.
bool object_type_defined(int type);

/// Human-readable description of a type ("surface of spheroid", ...), as miniAMR reports it.
std::string object_type_name(int type);

/// miniAMR's block test: true if any active object marks `box` (checked in order, the
/// first match wins). Thread-safe (pure function).
bool objects_intersect(std::span<const RefineObject> objects, const UnitBox& box);

/// Moves and grows every object by `delta` timesteps with miniAMR's bounce rules
/// (bounce 1 reflects the centre at the walls; bounce 2, like the reference, does nothing).
void move_objects(std::span<RefineObject> objects, double delta);

}  // namespace tessera
