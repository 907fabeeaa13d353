#include "tessera/mesh/morton.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tessera {

namespace {

// Spreads the low 21 bits of v so that bit b lands on bit 3b.
std::uint64_t spread_bits(std::uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

// Inverse of spread_bits: gathers bits 0, 3, 6, ... into the low 21 bits.
std::uint32_t compact_bits(std::uint64_t v) {
  v &= 0x1249249249249249ULL;
  v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ULL;
  v = (v ^ (v >> 4)) & 0x100f00f00f00f00fULL;
  v = (v ^ (v >> 8)) & 0x1f0000ff0000ffULL;
  v = (v ^ (v >> 16)) & 0x1f00000000ffffULL;
  v = (v ^ (v >> 32)) & 0x1fffffULL;
  return static_cast<std::uint32_t>(v);
}

}  // namespace

std::uint64_t morton_encode(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  if (x > kMortonMaxCoordinate || y > kMortonMaxCoordinate || z > kMortonMaxCoordinate) {
    throw std::out_of_range("morton_encode: coordinate exceeds 2^21 - 1");
  }
  return spread_bits(x) | spread_bits(y) << 1 | spread_bits(z) << 2;
}

std::array<std::uint32_t, 3> morton_decode(std::uint64_t code) {
  return {compact_bits(code), compact_bits(code >> 1), compact_bits(code >> 2)};
}

MortonGrid::MortonGrid(Int3 extent) : extent_(extent) {
  for (int a = 0; a < 3; ++a) {
    if (extent[a] < 1 || extent[a] > static_cast<int>(kMortonMaxCoordinate) + 1) {
      throw std::invalid_argument("Morton grid extent must be in [1, 2^21] per axis, got " +
                                  std::to_string(extent.x) + " " + std::to_string(extent.y) + " " +
                                  std::to_string(extent.z));
    }
  }
  // count() must fit in 63 bits: 2^21 blocks on every axis make 2^63.
  if (static_cast<double>(extent.x) * extent.y * extent.z >= 0x1p63) {
    throw std::invalid_argument("Morton grid extent must hold fewer than 2^63 blocks");
  }
  const int largest = std::max({extent.x, extent.y, extent.z});
  while ((std::int64_t{1} << levels_) < largest) ++levels_;
}

std::int64_t MortonGrid::blocks_in_cube(Int3 origin, std::int64_t side) const {
  std::int64_t n = 1;
  for (int a = 0; a < 3; ++a) {
    n *= std::clamp<std::int64_t>(std::int64_t{extent_[a]} - origin[a], 0, side);
  }
  return n;
}

std::int64_t MortonGrid::count_before(std::uint64_t code) const {
  if (levels_ < 21 && code >> (3 * levels_) != 0) return count();  // beyond the cube
  std::int64_t before = 0;
  Int3 origin{0, 0, 0};
  for (int level = levels_; level > 0; --level) {
    const std::int64_t side = std::int64_t{1} << level;
    const std::int64_t in_cube = blocks_in_cube(origin, side);
    if (in_cube == side * side * side) {
      // Every block of this cube is in the grid: the code's low bits are its position.
      return before + static_cast<std::int64_t>(code & ((std::uint64_t{1} << (3 * level)) - 1));
    }
    if (in_cube == 0) return before;
    const int half = 1 << (level - 1);
    const auto digit = static_cast<int>((code >> (3 * (level - 1))) & 7);
    for (int child = 0; child < digit; ++child) {
      before += blocks_in_cube({origin.x + (child & 1) * half, origin.y + (child >> 1 & 1) * half,
                                origin.z + (child >> 2 & 1) * half},
                               half);
    }
    origin = {origin.x + (digit & 1) * half, origin.y + (digit >> 1 & 1) * half,
              origin.z + (digit >> 2 & 1) * half};
  }
  return before;
}

std::int64_t MortonGrid::position(Int3 coord) const {
  return count_before(morton_encode(static_cast<std::uint32_t>(coord.x),
                                    static_cast<std::uint32_t>(coord.y),
                                    static_cast<std::uint32_t>(coord.z)));
}

std::vector<Int3> MortonGrid::blocks_in_range(std::int64_t first, std::int64_t end) const {
  if (first < 0 || end < first || end > count()) {
    throw std::invalid_argument("Morton grid range [" + std::to_string(first) + ", " +
                                std::to_string(end) + ") outside [0, " + std::to_string(count()) +
                                ")");
  }
  std::vector<Int3> out;
  out.reserve(static_cast<std::size_t>(end - first));
  if (first < end) collect({0, 0, 0}, levels_, 0, first, end, out);
  return out;
}

// Visits the cube of side 2^level at origin, whose first grid block has position `before`,
// descending only into children that hold positions in [first, end).
void MortonGrid::collect(Int3 origin, int level, std::int64_t before, std::int64_t first,
                         std::int64_t end, std::vector<Int3>& out) const {
  if (level == 0) {
    out.push_back(origin);
    return;
  }
  const int half = 1 << (level - 1);
  for (int child = 0; child < 8 && before < end; ++child) {
    const Int3 o{origin.x + (child & 1) * half, origin.y + (child >> 1 & 1) * half,
                 origin.z + (child >> 2 & 1) * half};
    const std::int64_t n = blocks_in_cube(o, half);
    if (n > 0 && before + n > first) collect(o, level - 1, before, first, end, out);
    before += n;
  }
}

std::int64_t balanced_range_begin(std::int64_t count, int parts, int part) {
  const std::int64_t base = count / parts;
  const std::int64_t extra = count % parts;
  return part * base + (part < extra ? part : extra);
}

int balanced_range_owner(std::int64_t count, int parts, std::int64_t item) {
  const std::int64_t base = count / parts;
  const std::int64_t extra = count % parts;
  // The first `extra` ranges hold base + 1 items each.
  const std::int64_t long_items = extra * (base + 1);
  if (item < long_items) return static_cast<int>(item / (base + 1));
  return static_cast<int>(extra + (item - long_items) / base);
}

}  // namespace tessera
