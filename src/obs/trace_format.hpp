#pragma once
// Pieces of Chrome trace-event JSON text, appended to a buffer without building a DOM
// (a trace holds one event per task: hundreds of thousands).

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>

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
    at_ = std::to_chars(at_, at_ + 24, value).ptr;
  }
  /// As append_microseconds.
  void microseconds(std::int64_t ns);

 private:
  fmt::memory_buffer& out_;
  std::size_t start_;
  char* at_;
};

}  // namespace tessera::obs
