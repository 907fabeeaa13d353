#include "tessera/mesh/morton.hpp"

#include <stdexcept>

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
