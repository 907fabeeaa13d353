// Trace text pieces: strings stay valid JSON, timestamps keep their nanoseconds.
#include "record/trace_format.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace tessera::obs {
namespace {

std::string microseconds(std::int64_t ns) {
  fmt::memory_buffer out;
  append_microseconds(out, ns);
  return fmt::to_string(out);
}

TEST(AppendMicroseconds, WritesThreeDecimalsSoNanosecondsRoundTrip) {
  EXPECT_EQ(microseconds(0), "0.000");
  EXPECT_EQ(microseconds(1), "0.001");
  EXPECT_EQ(microseconds(12'345'678), "12345.678");
  EXPECT_EQ(microseconds(-1'005), "-1.005");
  EXPECT_EQ(microseconds(-7), "-0.007");
  EXPECT_EQ(microseconds(std::numeric_limits<std::int64_t>::min()), "-9223372036854775.808");
}

template <class Integer>
std::string integer_text(Integer value) {
  fmt::memory_buffer out;
  TextCursor(out, 24).integer(value);
  return fmt::to_string(out);
}

TEST(TextCursor, WritesIntegersOfEveryDigitCountLikeToString) {
  // Every power of ten and its neighbours, where the digit count changes.
  for (std::uint64_t power = 1;; power *= 10) {
    for (const std::uint64_t v : {power - 1, power, power + 1}) {
      EXPECT_EQ(integer_text(v), std::to_string(v));
    }
    if (power > std::numeric_limits<std::uint64_t>::max() / 10) break;
  }
  for (const std::uint64_t v : {std::uint64_t{0}, std::uint64_t{42}, std::uint64_t{1} << 63,
                                std::numeric_limits<std::uint64_t>::max()}) {
    EXPECT_EQ(integer_text(v), std::to_string(v));
  }
  for (const std::int64_t v :
       {std::int64_t{-1}, std::int64_t{-10}, std::int64_t{-123'456},
        std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(integer_text(v), std::to_string(v));
  }
}

TEST(AppendJsonString, EscapesQuotesBackslashesAndControlCharacters) {
  const std::string text = "a\"b\\c\nd\te\x01";
  fmt::memory_buffer out;
  append_json_string(out, text);
  const std::string literal = fmt::to_string(out);
  EXPECT_EQ(literal, "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  EXPECT_EQ(nlohmann::json::parse(literal).get<std::string>(), text);
}

}  // namespace
}  // namespace tessera::obs
