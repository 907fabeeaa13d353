#pragma once
// Morton (Z-order) space-filling curve for block grids, and the balanced contiguous split
// of a curve over ranks.

#include <array>
#include <cstdint>

namespace tessera {

/// Largest coordinate value morton_encode accepts (21 bits per axis).
inline constexpr std::uint32_t kMortonMaxCoordinate = (1u << 21) - 1;

/// Interleaves the bits of x, y, z (each <= kMortonMaxCoordinate), x in the lowest bit.
std::uint64_t morton_encode(std::uint32_t x, std::uint32_t y, std::uint32_t z);
/// Inverse of morton_encode.
std::array<std::uint32_t, 3> morton_decode(std::uint64_t code);

/// Splits `count` consecutive items into `parts` contiguous ranges whose sizes differ by at
/// most one (the first count % parts ranges hold one more). Returns the first item of
/// range `part`, for part in [0, parts]; range_begin(count, parts, parts) == count.
std::int64_t balanced_range_begin(std::int64_t count, int parts, int part);
/// The range holding `item` (0 <= item < count) under balanced_range_begin.
int balanced_range_owner(std::int64_t count, int parts, std::int64_t item);

}  // namespace tessera
