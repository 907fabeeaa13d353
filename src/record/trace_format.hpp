#pragma once
// Pieces of Chrome trace-event JSON text, appended to a buffer without building a DOM
// (a trace holds one event per task: hundreds of thousands).

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace tessera::obs {

/// Appends `text` as a JSON string literal (quoted, escaped).
void append_json_string(fmt::memory_buffer& out, std::string_view text);

/// Appends `ns` nanoseconds as microseconds with exactly three decimals ("-1.005",
/// "12.000"), so the integer nanoseconds survive the round trip through JSON.
void append_microseconds(fmt::memory_buffer& out, std::int64_t ns);

/// Writes one event's text straight into a buffer's memory: the constructor makes room
/// for `max_bytes`, so no single append checks capacity (formatting is a per-task cost
/// of writing a trace); the destructor trims the buffer to what was written. Writing
/// more than `max_bytes` is a bug in the caller.
class TextCursor {
 public:
  TextCursor(fmt::memory_buffer& out, std::size_t max_bytes) : out_(out), start_(out.size()) {
    out_.resize(start_ + max_bytes);
    at_ = out_.data() + start_;
  }
  ~TextCursor() { out_.resize(static_cast<std::size_t>(at_ - out_.data())); }
  TextCursor(const TextCursor&) = delete;
  TextCursor& operator=(const TextCursor&) = delete;

  void text(std::string_view s) {
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
  }
  void character(char c) { *at_++ = c; }
  template <class Integer>
  void integer(Integer value) {
    static_assert(std::is_integral_v<Integer>);
    if constexpr (std::is_signed_v<Integer>) {
      if (value < 0) {
        character('-');
        // Negate as unsigned so the most negative value cannot overflow.
        decimal(~static_cast<std::uint64_t>(value) + 1);
        return;
      }
    }
    decimal(static_cast<std::uint64_t>(value));
  }
  /// As append_microseconds.
  void microseconds(std::int64_t ns);

 private:
  /// Writes `value` in decimal. Formatting a trace writes several numbers per task, so
  /// this takes the digit count from the bit width and writes two digits per step
  /// (std::to_chars counts digits in a loop).
  void decimal(std::uint64_t value) {
    static constexpr std::array<std::uint64_t, 20> kPowers = [] {
      std::array<std::uint64_t, 20> powers{};
      std::uint64_t power = 1;
      for (std::uint64_t& p : powers) {
        p = power;
        power *= 10;  // wraps after the last entry, unused
      }
      return powers;
    }();
    // 1233 / 4096 ~ log10(2): a first guess that is exact or one short.
    const int guess = std::bit_width(value) * 1233 >> 12;
    const int digits = value == 0 ? 1 : guess + (value >= kPowers[guess] ? 1 : 0);
    char* end = at_ + digits;
    char* p = end;
    while (value >= 100) {
      p -= 2;
      std::memcpy(p, kDigitPairs + 2 * (value % 100), 2);
      value /= 100;
    }
    if (value >= 10) {
      p -= 2;
      std::memcpy(p, kDigitPairs + 2 * value, 2);
    } else {
      *--p = static_cast<char>('0' + value);
    }
    at_ = end;
  }

  static constexpr char kDigitPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";

  fmt::memory_buffer& out_;
  std::size_t start_;
  char* at_;
};

}  // namespace tessera::obs
