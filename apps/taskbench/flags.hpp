#pragma once
// Task Bench spells its long options with one dash (-steps 10); CLI11 wants two. The
// known Task Bench flags are rewritten before parsing; everything else is left alone, so
// negative numbers and tessera's own options pass through unchanged. Several task graphs
// on one command line are separated by -and, as in Task Bench: split_graphs takes the
// flags of the second and later graphs out of the arguments before they are parsed.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace tessera::taskbench {

inline constexpr std::array<std::string_view, 15> kTaskBenchFlags = {
    "steps",  "width",   "type",   "radix",     "period", "fraction", "kernel", "iter",
    "output", "scratch", "sample", "imbalance", "nodes",  "and",      "field"};

/// The Task Bench flags that describe one task graph (each takes a value); after -and
/// they apply to the new graph. The others (-nodes, -v, tessera's options) apply to the
/// whole run wherever they stand.
inline constexpr std::array<std::string_view, 12> kGraphFlags = {
    "steps",  "width", "type",   "radix",   "period", "fraction",
    "kernel", "iter",  "output", "scratch", "sample", "imbalance"};

/// argv with "-steps" turned into "--steps" for every Task Bench flag (argv[0] kept).
inline std::vector<std::string> translate_task_bench_flags(int argc, char** argv) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(argc));
  for (int i = 0; i < argc; ++i) {
    std::string_view arg = argv[i];
    bool known = false;
    if (i > 0 && arg.size() > 1 && arg[0] == '-' && arg[1] != '-') {
      for (std::string_view flag : kTaskBenchFlags) known = known || arg.substr(1) == flag;
    }
    std::string rewritten;
    if (known) rewritten.push_back('-');
    rewritten.append(arg);
    out.push_back(std::move(rewritten));
  }
  return out;
}

/// Translated arguments split at every "--and".
struct GraphArguments {
  /// argv[0], the first graph's flags and every argument that is not a graph flag of a
  /// later graph (tessera's options, -nodes, -v, anything unknown): parsed as before.
  std::vector<std::string> run;
  /// The graph flags (with their values) of graphs 2, 3, ..., in order.
  std::vector<std::vector<std::string>> later_graphs;
  /// Set when the split is malformed: {option, message} for Session::fail.
  std::optional<std::pair<std::string, std::string>> problem;
};

/// Splits translated arguments (translate_task_bench_flags) at "--and". A graph flag
/// after an -and takes the next argument as its value (as Task Bench does), or is
/// written --flag=value. An -and followed by no graph flag before the next -and or the
/// end is a problem: Task Bench would silently run a default graph there.
inline GraphArguments split_graphs(const std::vector<std::string>& args) {
  GraphArguments out;
  const auto graph_flag = [](std::string_view arg) {
    if (arg.size() < 3 || arg.substr(0, 2) != "--") return false;
    const std::string_view name = arg.substr(2, arg.find('=') - 2);
    for (std::string_view flag : kGraphFlags) {
      if (name == flag) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (i > 0 && arg == "--and") {
      out.later_graphs.emplace_back();
    } else if (i == 0 || out.later_graphs.empty() || !graph_flag(arg)) {
      out.run.push_back(arg);
    } else {
      auto& graph = out.later_graphs.back();
      graph.push_back(arg);
      if (arg.find('=') == std::string::npos && i + 1 < args.size()) graph.push_back(args[++i]);
    }
  }
  for (std::size_t g = 0; g < out.later_graphs.size() && !out.problem; ++g) {
    if (out.later_graphs[g].empty()) {
      out.problem = {"-and",
                     fmt::format("task graph {} has no flags: each -and must be followed by "
                                 "the flags of another graph (-steps, -width, -type, ...)",
                                 g + 2)};
    }
  }
  return out;
}

}  // namespace tessera::taskbench
