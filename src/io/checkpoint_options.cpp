#include "tessera/io/checkpoint_options.hpp"
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "tessera/io/checkpoint_content.hpp"

namespace tessera {

void CheckpointOptions::add_to(CLI::App& cli, const std::string& step_name) {
  cli.add_option("--checkpoint-every", every,
                 fmt::format("write a checkpoint every N {}; 0 = never (default 0)", step_name))
      ->check(CLI::Range(0, 1 << 30));
  cli.add_option("--checkpoint-dir", dir,
                 "directory of the step-N/ checkpoints (default checkpoints)");
  cli.add_option("--keep", keep, "newest complete checkpoints kept (default 2)")
      ->check(CLI::Range(1, 1 << 20));
  cli.add_option("--restart", restart,
                 "continue from a checkpoint: a step-N directory, or latest (the newest "
                 "complete one in --checkpoint-dir); the problem options come from it");
}

void check_problem_options_agree(const CLI::App& cli, const nlohmann::json& given,
                                 const nlohmann::json& stored, const std::string& file) {
  for (const auto& [name, value] : stored.items()) {
    const CLI::Option* option = nullptr;
    try {
      option = cli.get_option(name);
    } catch (const CLI::OptionNotFound&) {
      continue;  // an option this build does not know: nothing on the command line to check
    }
    if (option->count() == 0) continue;
    if (!given.contains(name) || given.at(name) != value)
      throw CheckpointError(name, fmt::format("{} given, but the checkpoint {} was written with {} "
                                              "(omit the option to take the checkpoint's value)",
                                              given.contains(name) ? given.at(name).dump() : "?",
                                              file, value.dump()));
  }
}

}  // namespace tessera
