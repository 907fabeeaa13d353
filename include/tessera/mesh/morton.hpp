#pragma once
// Morton (Z-order) space-filling curve for block grids, and the balanced contiguous split
// of a curve over ranks.

#include <array>
#include <cstdint>
#include <vector>

#include "tessera/mesh/box.hpp"

namespace tessera {

/// Largest coordinate value morton_encode accepts (21 bits per axis).
inline constexpr std::uint32_t kMortonMaxCoordinate = (1u << 21) - 1;

/// Interleaves the bits of x, y, z (each <= kMortonMaxCoordinate), x in the lowest bit.
std::uint64_t morton_encode(std::uint32_t x, std::uint32_t y, std::uint32_t z);
/// Inverse of morton_encode.
std::array<std::uint32_t, 3> morton_decode(std::uint64_t code);

/// The Morton curve through the blocks of a grid [0, extent) with any extent (each axis
/// <= 2^21): the curve over the enclosing power-of-two cube, with the blocks outside the
/// grid skipped. A block's position along it is found by descending the implicit octree of
/// that cube, counting the grid blocks in the subtrees before it: O(log extent) time and no
/// table over the blocks, so a rank can place any block without knowing the others.
/// Thread-safe (immutable).
class MortonGrid {
 public:
  /// extent >= 1 on every axis, <= kMortonMaxCoordinate + 1, fewer than 2^63 blocks in all
  /// (throws std::invalid_argument).
  explicit MortonGrid(Int3 extent);

  Int3 extent() const { return extent_; }
  /// Blocks in the grid.
  std::int64_t count() const { return product(extent_); }
  /// Number of grid blocks whose Morton code is below `code`.
  std::int64_t count_before(std::uint64_t code) const;
  /// Position of grid block `coord` along the curve, in [0, count()).
  std::int64_t position(Int3 coord) const;
  /// The grid blocks at positions [first, end) in curve order (0 <= first <= end <=
  /// count()); O(end - first + log extent) time.
  std::vector<Int3> blocks_in_range(std::int64_t first, std::int64_t end) const;

 private:
  /// Grid blocks inside the cube of side `side` at `origin`.
  std::int64_t blocks_in_cube(Int3 origin, std::int64_t side) const;
  void collect(Int3 origin, int level, std::int64_t before, std::int64_t first, std::int64_t end,
               std::vector<Int3>& out) const;

  Int3 extent_;
  int levels_ = 0;  // the enclosing cube has side 2^levels_
};

/// Splits `count` consecutive items into `parts` contiguous ranges whose sizes differ by at
/// most one (the first count % parts ranges hold one more). Returns the first item of
/// range `part`, for part in [0, parts]; range_begin(count, parts, parts) == count.
std::int64_t balanced_range_begin(std::int64_t count, int parts, int part);
/// The range holding `item` (0 <= item < count) under balanced_range_begin.
int balanced_range_owner(std::int64_t count, int parts, std::int64_t item);

}  // namespace tessera
