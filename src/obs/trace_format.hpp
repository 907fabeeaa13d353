#pragma once
// Pieces of Chrome trace-event JSON text, appended to a buffer without building a DOM
// (a trace holds one event per task: hundreds of thousands).

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

namespace tessera::obs {

/// Appends `text` as a JSON string literal (quoted, escaped).
void append_json_string(fmt::memory_buffer& out, std::string_view text);

/// Appends `ns` nanoseconds as microseconds with exactly three decimals ("-1.005",
/// "12.000"), so the integer nanoseconds survive the round trip through JSON.
void append_microseconds(fmt::memory_buffer& out, std::int64_t ns);

}  // namespace tessera::obs
