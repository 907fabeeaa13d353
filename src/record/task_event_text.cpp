#include "record/task_event_text.hpp"

#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>

#include "record/trace_format.hpp"

namespace tessera::obs {

namespace {

constexpr std::size_t kNoRecord = std::numeric_limits<std::size_t>::max();

/// An access's mode in "acc". Literal-sized copies, not a table of strings: a copy of
/// unknown size is a memcpy call, and a task has several accesses.
void append_mode_letters(TextCursor& text, AccessMode mode) {
  switch (mode) {
    case AccessMode::read:
      text.character('r');
      return;
    case AccessMode::write:
      text.character('w');
      return;
    case AccessMode::readwrite:
      text.text("rw");
      return;
    case AccessMode::reduce:
      text.text("red");
      return;
  }
}

/// Bytes an event may take besides its prefix: ts, dur, id, flags and queued (< 200),
/// plus at most 24 per tag or access.
std::size_t max_event_bytes(std::size_t prefix_bytes, std::uint64_t counts) {
  return prefix_bytes + 200 + 24 * submit_words::record_words(counts);
}

}  // namespace

TaskEventText::TaskEventText(const EventBuffer<std::uint64_t>& submits, std::uint64_t submitted,
                             std::span<const EventBuffer<ReadyMark>* const> ready,
                             TraceTimeLine time, int rank)
    : submits_(submits), time_(time), rank_(rank) {
  first_id_ = submits_.empty() ? 0 : submits_[0];
  record_at_.resize(submitted);
  for (std::size_t at = 0, n = 0; n < submitted; ++n) {
    record_at_[n] = at;
    at += submit_words::record_words(submits_[at + 1]);
  }
  ready_ticks_.assign(submitted, -1);
  for (const EventBuffer<ReadyMark>* marks : ready) {
    marks->for_each([&](const ReadyMark& m) {
      if (record_of(m.id) != kNoRecord) ready_ticks_[m.id - first_id_] = m.ticks;
    });
  }
}

std::size_t TaskEventText::record_of(std::uint64_t id) const {
  if (id < first_id_ || id - first_id_ >= record_at_.size()) return kNoRecord;
  const std::size_t at = record_at_[id - first_id_];
  return submits_[at] == id ? at : kNoRecord;
}

void TaskEventText::append(fmt::memory_buffer& out, int thread, const EventBuffer<TaskSpan>& spans,
                           std::size_t begin, std::size_t end) const {
  // Everything before "ts" is the same for all tasks of one name on one thread.
  std::unordered_map<const char*, std::string> prefixes;
  const char* last_name = nullptr;
  const std::string* prefix = nullptr;
  for (std::size_t i = begin; i < end; ++i) {
    const TaskSpan& span = spans[i];
    if (!prefix || span.name != last_name) {
      auto [entry, fresh] = prefixes.try_emplace(span.name);
      if (fresh) {
        fmt::memory_buffer name;
        append_json_string(name, span.name ? span.name : "");
        entry->second = fmt::format(",\n{{\"ph\":\"X\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":",
                                    std::string_view(name.data(), name.size()), rank_, thread);
      }
      last_name = span.name;
      prefix = &entry->second;
    }
    const std::size_t record = record_of(span.id);
    const std::uint64_t counts = record == kNoRecord ? 0 : submits_[record + 1];
    TextCursor text(out, max_event_bytes(prefix->size(), counts));
    text.text(*prefix);
    // Durations are differences of aligned times, so ts + dur is exactly the aligned end.
    const std::int64_t begin_ns = time_.ns(span.begin_ticks);
    text.microseconds(begin_ns);
    text.text(",\"dur\":");
    text.microseconds(time_.ns(span.end_ticks) - begin_ns);
    text.text(",\"args\":{\"id\":");
    text.integer(span.id);
    if (record != kNoRecord) {
      std::size_t at = record + 2;
      if (const std::size_t tags = submit_words::tag_count(counts); tags > 0) {
        text.text(",\"tags\":[");
        for (std::size_t t = 0; t < tags; ++t, ++at) {
          if (t) text.character(',');
          text.integer(static_cast<std::int64_t>(submits_[at]));
        }
        text.character(']');
      }
      if (const std::size_t accesses = submit_words::access_count(counts); accesses > 0) {
        text.text(",\"acc\":\"");
        for (std::size_t a = 0; a < accesses; ++a, ++at) {
          const std::uint64_t access = submits_[at];
          if (a) text.character(' ');
          append_mode_letters(text, static_cast<AccessMode>(access & submit_words::kModeMask));
          text.integer(access >> submit_words::kModeBits);
        }
        text.character('"');
      }
      if (counts & submit_words::kReplayed) {
        text.text(",\"iteration\":");
        text.integer(static_cast<std::int64_t>(submits_[at++]));
      }
      if (counts & submit_words::kHighPriority) text.text(",\"priority\":\"high\"");
      if (counts & submit_words::kMainThreadOnly) text.text(",\"main_thread_only\":true");
      if (const std::int64_t ready = ready_ticks_[span.id - first_id_]; ready >= 0) {
        text.text(",\"queued\":");
        text.microseconds(begin_ns - time_.ns(ready));
      }
    }
    text.text("}}");
  }
}

}  // namespace tessera::obs
