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

/// The terms of `count` consecutive blocks of `words` words each, `data` pointing at the
/// first (the block at curve index `first_curve`), into `terms[0..count)`. Equal to
/// block_checksum_term per block; FNV-1a is one chain of dependent multiplies per block,
/// so four blocks are hashed side by side to keep the multiplier busy.
inline void block_checksum_terms(const double* data, std::size_t words, std::size_t count,
                                 std::int64_t first_curve, std::uint64_t* terms) {
  std::size_t b = 0;
  for (; b + 4 <= count; b += 4) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(data + b * words);
    const std::size_t stride = 8 * words;
    std::uint64_t h0 = 0xcbf29ce484222325ULL, h1 = h0, h2 = h0, h3 = h0;
    for (std::size_t i = 0; i < words; ++i) {
      std::uint64_t w0, w1, w2, w3;
      std::memcpy(&w0, bytes + 8 * i, 8);
      std::memcpy(&w1, bytes + stride + 8 * i, 8);
      std::memcpy(&w2, bytes + 2 * stride + 8 * i, 8);
      std::memcpy(&w3, bytes + 3 * stride + 8 * i, 8);
      h0 = (h0 ^ w0) * 0x100000001b3ULL;
      h1 = (h1 ^ w1) * 0x100000001b3ULL;
      h2 = (h2 ^ w2) * 0x100000001b3ULL;
      h3 = (h3 ^ w3) * 0x100000001b3ULL;
    }
    const std::uint64_t h[4] = {h0, h1, h2, h3};
    for (std::size_t j = 0; j < 4; ++j) {
      const auto curve = static_cast<std::uint64_t>(first_curve + static_cast<std::int64_t>(b + j));
      terms[b + j] = checksum_mix(h[j] ^ checksum_mix(curve));
    }
  }
  for (; b < count; ++b)
    terms[b] =
        block_checksum_term(data + b * words, words, first_curve + static_cast<std::int64_t>(b));
}

}  // namespace tessera::detail
