#pragma once
// The checksum of a checkpoint dataset: the sum, modulo 2^64, of one term per block,
// term = mix(h ^ mix(curve_index)), where h is FNV-1a over the block's 64-bit words
// (h = 0xcbf29ce484222325; per word: h ^= word, h *= 0x100000001b3) and mix is
// splitmix64's finalizer. A sum of per-block terms does not depend on which rank held
// which block, so a restart on any rank count can verify it; any change inside one
// block's words changes that block's term. docs/checkpoint.md recomputes it with numpy.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tessera::detail {

inline std::uint64_t checksum_mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The term of one block of `words` 64-bit words (doubles or int64s, native byte order).
inline std::uint64_t block_checksum_term(const void* data, std::size_t words,
                                         std::int64_t curve_index) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, bytes + 8 * i, 8);
    h ^= w;
    h *= 0x100000001b3ULL;
  }
  return checksum_mix(h ^ checksum_mix(static_cast<std::uint64_t>(curve_index)));
}

}  // namespace tessera::detail
