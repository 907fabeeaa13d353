#pragma once
// Integer 3-vectors and half-open boxes of cells: the vocabulary of block geometry.

#include <cstdint>

namespace tessera {

/// A triple of ints indexed by axis (0 = x, 1 = y, 2 = z).
struct Int3 {
  int x = 0;
  int y = 0;
  int z = 0;
  constexpr int& operator[](int axis) { return axis == 0 ? x : (axis == 1 ? y : z); }
  constexpr int operator[](int axis) const { return axis == 0 ? x : (axis == 1 ? y : z); }
  friend bool operator==(const Int3&, const Int3&) = default;
};

/// x * y * z, computed in 64 bits.
inline std::int64_t product(Int3 v) {
  return std::int64_t{v.x} * v.y * v.z;
}

/// The cells (i, j, k) with lo <= (i, j, k) < hi componentwise. Empty when any hi <= lo.
struct Box {
  Int3 lo;
  Int3 hi;
  Int3 extent() const { return {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}; }
  bool empty() const { return hi.x <= lo.x || hi.y <= lo.y || hi.z <= lo.z; }
  /// Number of cells (0 when empty).
  std::int64_t cells() const { return empty() ? 0 : product(extent()); }
  bool contains(Int3 c) const {
    return lo.x <= c.x && c.x < hi.x && lo.y <= c.y && c.y < hi.y && lo.z <= c.z && c.z < hi.z;
  }
  friend bool operator==(const Box&, const Box&) = default;
};

}  // namespace tessera
