#pragma once
// Task Bench's deterministic "random" numbers: SipHash-2-4 (Aumasson & Bernstein) of the
// little-endian bytes of a few 64-bit integers, under the fixed key bytes 1, 2, ..., 15, 0,
// scaled to [0, 1). random_nearest draws its edges and load_imbalance its iteration counts
// from it, so the same inputs give the same graph and FLOP count as Task Bench.

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>

namespace tessera::taskbench {

/// SipHash-2-4 with a 64-bit result of `message` under the 16-byte `key`.
inline std::uint64_t siphash24(std::span<const std::uint8_t> message,
                               const std::array<std::uint8_t, 16>& key) {
  const auto load_le = [](const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  };
  const auto rotl = [](std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  const std::uint64_t k0 = load_le(key.data());
  const std::uint64_t k1 = load_le(key.data() + 8);
  std::uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
  std::uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
  std::uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
  std::uint64_t v3 = 0x7465646279746573ULL ^ k1;
  const auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  };
  const std::size_t full = message.size() / 8 * 8;
  for (std::size_t i = 0; i < full; i += 8) {
    const std::uint64_t m = load_le(message.data() + i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  // Last block: the remaining bytes, with the message length in the top byte.
  std::uint64_t last = static_cast<std::uint64_t>(message.size()) << 56;
  for (std::size_t i = full; i < message.size(); ++i) {
    last |= static_cast<std::uint64_t>(message[i]) << (8 * (i - full));
  }
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/// Task Bench's random_uniform over up to eight integers: a value in [0, 1).
inline double random_uniform(std::span<const std::int64_t> words) {
  static constexpr std::array<std::uint8_t, 16> kKey = {1, 2,  3,  4,  5,  6,  7,  8,
                                                        9, 10, 11, 12, 13, 14, 15, 0};
  std::array<std::uint8_t, 64> bytes{};
  if (words.size() > bytes.size() / 8) throw std::length_error("random_uniform: too many words");
  for (std::size_t w = 0; w < words.size(); ++w) {
    const auto u = static_cast<std::uint64_t>(words[w]);
    for (int i = 0; i < 8; ++i) bytes[8 * w + i] = static_cast<std::uint8_t>(u >> (8 * i));
  }
  return static_cast<double>(siphash24({bytes.data(), words.size() * 8}, kKey)) * 0x1.p-64;
}

}  // namespace tessera::taskbench
