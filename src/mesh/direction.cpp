#include "tessera/mesh/direction.hpp"

#include <array>

namespace tessera {

namespace {

constexpr std::array<Direction, 6> kFaceDirections{{
    {{-1, 0, 0}},
    {{1, 0, 0}},
    {{0, -1, 0}},
    {{0, 1, 0}},
    {{0, 0, -1}},
    {{0, 0, 1}},
}};

constexpr std::array<Direction, 26> make_full_directions() {
  std::array<Direction, 26> out{};
  int n = 0;
  for (int index = 0; index < Direction::kCount; ++index) {
    if (index != 13) out[n++] = Direction::from_index(index);
  }
  return out;
}
constexpr std::array<Direction, 26> kFullDirections = make_full_directions();

// Names indexed by Direction::index(): the nonzero components in x, y, z order.
constexpr std::array<const char*, Direction::kCount> kNames{
    "-x-y-z", "-y-z", "+x-y-z", "-x-z", "-z", "+x-z", "-x+y-z", "+y-z", "+x+y-z",
    "-x-y",   "-y",   "+x-y",   "-x",   "0",  "+x",   "-x+y",   "+y",   "+x+y",
    "-x-y+z", "-y+z", "+x-y+z", "-x+z", "+z", "+x+z", "-x+y+z", "+y+z", "+x+y+z",
};

}  // namespace

std::span<const Direction> halo_directions(HaloShape shape) {
  if (shape == HaloShape::faces) return kFaceDirections;
  return kFullDirections;
}

const char* direction_name(Direction d) {
  return kNames[d.index()];
}

}  // namespace tessera
