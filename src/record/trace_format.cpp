#include "record/trace_format.hpp"

namespace tessera::obs {

void append_json_string(fmt::memory_buffer& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        out.append(std::string_view("\\\""));
        break;
      case '\\':
        out.append(std::string_view("\\\\"));
        break;
      case '\n':
        out.append(std::string_view("\\n"));
        break;
      case '\t':
        out.append(std::string_view("\\t"));
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(fmt::appender(out), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void append_microseconds(fmt::memory_buffer& out, std::int64_t ns) {
  TextCursor(out, 32).microseconds(ns);
}

void TextCursor::microseconds(std::int64_t ns) {
  // Work on the magnitude as unsigned so INT64_MIN cannot overflow.
  const bool negative = ns < 0;
  const std::uint64_t magnitude =
      negative ? ~static_cast<std::uint64_t>(ns) + 1 : static_cast<std::uint64_t>(ns);
  if (negative) character('-');
  decimal(magnitude / 1000);
  const auto fraction = static_cast<unsigned>(magnitude % 1000);
  at_[0] = '.';
  at_[1] = static_cast<char>('0' + fraction / 100);
  std::memcpy(at_ + 2, kDigitPairs + 2 * (fraction % 100), 2);
  at_ += 4;
}

}  // namespace tessera::obs
