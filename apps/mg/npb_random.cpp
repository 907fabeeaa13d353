#include "npb_random.hpp"

#include <tuple>

namespace tessera::mg {

std::uint64_t power_mod46(std::uint64_t a, std::uint64_t n) {
  std::uint64_t result = 1;
  std::uint64_t base = a;
  while (n > 0) {
    if (n & 1) result = multiply_mod46(result, base);
    base = multiply_mod46(base, base);
    n >>= 1;
  }
  return result;
}

namespace {

// Whether a belongs before b in a list ordered by `larger_first` value, then by index.
bool before(const Candidate& a, const Candidate& b, bool larger_first) {
  if (b.index < 0) return a.index >= 0;
  if (a.index < 0) return false;
  if (a.value != b.value) return larger_first ? a.value > b.value : a.value < b.value;
  return a.index < b.index;
}

void insert(Candidate (&list)[Extremes::kCount], Candidate c, bool larger_first) {
  if (!before(c, list[Extremes::kCount - 1], larger_first)) return;
  int p = Extremes::kCount - 1;
  while (p > 0 && before(c, list[p - 1], larger_first)) {
    list[p] = list[p - 1];
    --p;
  }
  list[p] = c;
}

}  // namespace

void Extremes::offer(Candidate c) {
  insert(largest, c, true);
  insert(smallest, c, false);
}

void Extremes::merge(const Extremes& other) {
  for (const Candidate& c : other.largest) {
    if (c.index >= 0) insert(largest, c, true);
  }
  for (const Candidate& c : other.smallest) {
    if (c.index >= 0) insert(smallest, c, false);
  }
}

Extremes generated_extremes(int nx, Box box) {
  Extremes e;
  const std::int64_t n = nx;
  for (int k = box.lo.z; k < box.hi.z; ++k) {
    for (int j = box.lo.y; j < box.hi.y; ++j) {
      const std::int64_t first = box.lo.x + n * (j + n * k);
      std::uint64_t x = multiply_mod46(power_mod46(kMultiplier, first + 1), kSeed);
      for (int i = box.lo.x; i < box.hi.x; ++i) {
        const double value = to_unit(x);
        // Most values are neither among the largest nor the smallest seen: test cheaply.
        if (value >= e.largest[Extremes::kCount - 1].value ||
            e.largest[Extremes::kCount - 1].index < 0 ||
            value <= e.smallest[Extremes::kCount - 1].value ||
            e.smallest[Extremes::kCount - 1].index < 0) {
          e.offer({value, first + (i - box.lo.x)});
        }
        x = multiply_mod46(x, kMultiplier);
      }
    }
  }
  return e;
}

}  // namespace tessera::mg
