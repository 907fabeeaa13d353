#pragma once
// Task Bench spells its long options with one dash (-steps 10); CLI11 wants two. The
// known Task Bench flags are rewritten before parsing; everything else is left alone, so
// negative numbers and tessera's own options pass through unchanged.

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::taskbench {

inline constexpr std::array<std::string_view, 15> kTaskBenchFlags = {
    "steps",  "width",   "type",   "radix",     "period", "fraction", "kernel", "iter",
    "output", "scratch", "sample", "imbalance", "nodes",  "and",      "field"};

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

}  // namespace tessera::taskbench
