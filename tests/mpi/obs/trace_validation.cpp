#include "trace_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace tessera::obs_test {

namespace {

std::int64_t to_ns(const nlohmann::json& microseconds) {
  return std::llround(microseconds.get<double>() * 1000.0);
}

/// A task's "acc" text ("r12 w7 rw3 red9") as (handle id, mode name) pairs; throws
/// std::invalid_argument on anything else.
std::vector<std::pair<std::uint64_t, std::string>> parse_accesses(const std::string& text) {
  static const std::map<std::string, std::string> kModes = {
      {"r", "read"}, {"w", "write"}, {"rw", "readwrite"}, {"red", "reduce"}};
  std::vector<std::pair<std::uint64_t, std::string>> accesses;
  std::istringstream items(text);
  for (std::string item; items >> item;) {
    const std::size_t digits = item.find_first_of("0123456789");
    const auto mode = kModes.find(item.substr(0, digits));
    if (digits == std::string::npos || mode == kModes.end() ||
        item.find_first_not_of("0123456789", digits) != std::string::npos) {
      throw std::invalid_argument("bad access '" + item + "' in \"" + text + "\"");
    }
    accesses.emplace_back(std::stoull(item.substr(digits)), mode->second);
  }
  return accesses;
}

struct Task {
  int rank;
  int tid;
  std::uint64_t id;
  std::string name;
  std::int64_t begin;
  std::int64_t end;
  std::vector<std::pair<std::uint64_t, std::string>> accesses;
};

struct Group {
  std::string mode;
  std::int64_t last_end = -1;
  const Task* last = nullptr;
};

}  // namespace

std::vector<std::string> validate_trace(const nlohmann::json& trace) {
  std::vector<std::string> bad;
  std::map<int, std::vector<Task>> tasks;
  // (src, dst, tag) -> (send bytes by id, recv bytes by id)
  std::map<std::tuple<int, int, int>, std::pair<std::map<std::uint64_t, std::uint64_t>,
                                                std::map<std::uint64_t, std::uint64_t>>>
      channels;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.value("ph", "") != "X") continue;
    const auto& args = e.at("args");
    if (!e.contains("cat")) {
      Task t{e.at("pid").get<int>(),
             e.at("tid").get<int>(),
             args.at("id").get<std::uint64_t>(),
             e.at("name").get<std::string>(),
             to_ns(e.at("ts")),
             0,
             {}};
      t.end = t.begin + to_ns(e.at("dur"));
      if (args.contains("acc")) t.accesses = parse_accesses(args.at("acc").get<std::string>());
      tasks[t.rank].push_back(std::move(t));
    } else if (e.value("cat", "") == "mpi") {
      const std::string kind = args.at("kind").get<std::string>();
      const int rank = e.at("pid").get<int>();
      const int peer = args.at("peer").get<int>();
      const int tag = args.at("tag").get<int>();
      const auto id = args.at("id").get<std::uint64_t>();
      const auto bytes = args.at("bytes").get<std::uint64_t>();
      if (args.contains("incomplete"))
        bad.push_back(fmt::format("rank {}: op {} incomplete", rank, id));
      if (kind == "send") channels[{rank, peer, tag}].first[id] = bytes;
      if (kind == "recv") channels[{peer, rank, tag}].second[id] = bytes;
    }
  }
  for (auto& [rank, ts] : tasks) {
    std::sort(ts.begin(), ts.end(), [](const Task& a, const Task& b) { return a.id < b.id; });
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].id != i + 1) {
        bad.push_back(fmt::format("rank {}: task at position {} has id {}", rank, i, ts[i].id));
        break;
      }
    }
    std::map<int, std::vector<const Task*>> by_thread;
    for (const Task& t : ts) by_thread[t.tid].push_back(&t);
    for (auto& [tid, list] : by_thread) {
      std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
      for (std::size_t i = 1; i < list.size(); ++i) {
        if (list[i]->begin < list[i - 1]->end) {
          bad.push_back(fmt::format("rank {} thread {}: tasks {} and {} overlap", rank, tid,
                                    list[i - 1]->id, list[i]->id));
        }
      }
    }
    std::map<std::uint64_t, Group> current, previous;
    for (const Task& t : ts) {
      for (const auto& [handle, mode] : t.accesses) {
        auto it = current.find(handle);
        const bool shareable = mode == "read" || mode == "reduce";
        if (it == current.end() || !shareable || it->second.mode != mode) {
          if (it != current.end()) previous[handle] = it->second;
          current[handle] = Group{mode};
          it = current.find(handle);
        }
        const auto before = previous.find(handle);
        if (before != previous.end() && before->second.last && t.begin < before->second.last_end) {
          bad.push_back(fmt::format(
              "rank {}: task {} '{}' began before task {} '{}' ended (handle {})", rank, t.id,
              t.name, before->second.last->id, before->second.last->name, handle));
        }
        if (t.end > it->second.last_end) {
          it->second.last_end = t.end;
          it->second.last = &t;
        }
      }
    }
  }
  for (const auto& [key, channel] : channels) {
    const auto& [src, dst, tag] = key;
    if (channel.first.size() != channel.second.size()) {
      bad.push_back(fmt::format("{} -> {} tag {}: {} sends, {} receives", src, dst, tag,
                                channel.first.size(), channel.second.size()));
      continue;
    }
    auto s = channel.first.begin();
    for (auto r = channel.second.begin(); r != channel.second.end(); ++r, ++s) {
      if (s->second != r->second) {
        bad.push_back(fmt::format("{} -> {} tag {}: sent {} bytes, received {}", src, dst, tag,
                                  s->second, r->second));
      }
    }
  }
  return bad;
}

}  // namespace tessera::obs_test
