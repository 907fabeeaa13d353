#include "tessera/restart.hpp"

#include <fmt/format.h>

#include <chrono>

#include "tessera/io/checkpoint_content.hpp"
#include "tessera/option_registry.hpp"

namespace tessera {

void declare_checkpoint_options(OptionRegistry& registry, CheckpointOptions& options,
                                const std::string& step_name) {
  registry
      .add("--checkpoint-every", options.every,
           fmt::format("write a checkpoint every N {}; 0 = never", step_name))
      ->check(CLI::Range(0, 1 << 30));
  registry.add("--checkpoint-dir", options.dir, "directory of the step-N/ checkpoints");
  registry.add("--keep", options.keep, "newest complete checkpoints kept")
      ->check(CLI::Range(1, 1 << 20));
  registry.add("--restart", options.restart,
               "continue from a checkpoint: a step-N directory, or latest (the newest complete "
               "one in --checkpoint-dir); the problem options come from it");
}

std::unique_ptr<CheckpointReader> open_restart(
    Session& session, const CheckpointOptions& options, const std::string& app,
    const nlohmann::json& given, const std::function<void(const nlohmann::json&)>& restore) {
  if (!options.restarting()) return nullptr;
  std::unique_ptr<CheckpointReader> reader;
  try {
    reader =
        std::make_unique<CheckpointReader>(session.comm().mpi(), options.restart, options.dir, app);
    check_problem_options_agree(session.cli(), given, reader->header().problem, reader->file());
    restore(reader->header().problem);
  } catch (const CheckpointError& e) {
    session.fail(e.option(), e.what());
  } catch (const nlohmann::json::exception& e) {
    // The reader may have failed in its constructor: then only the option names the file.
    session.fail("--restart", fmt::format("{}: problem options unreadable: {}",
                                          reader ? reader->file() : options.restart, e.what()));
  }
  return reader;
}

CheckpointRestore restore_checkpoint(Session& session, CheckpointReader& reader,
                                     const std::function<void()>& read) {
  const auto start = std::chrono::steady_clock::now();
  try {
    read();
  } catch (const CheckpointError& e) {
    session.fail(e.option(), e.what());
  } catch (const nlohmann::json::exception& e) {
    session.fail("--restart",
                 fmt::format("{}: the app state is incomplete: {}", reader.file(), e.what()));
  }
  CheckpointRestore restored;
  restored.restore_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  restored.read_s = reader.read_seconds();
  restored.read_phases_s = reader.read_phase_seconds();
  return restored;
}

std::unique_ptr<CheckpointReader> open_restart(Session& session, const CheckpointOptions& options,
                                               const std::string& app) {
  if (!options.restarting()) return nullptr;
  std::unique_ptr<CheckpointReader> reader;
  try {
    reader =
        std::make_unique<CheckpointReader>(session.comm().mpi(), options.restart, options.dir, app);
    session.option_registry().restore(reader->header().problem, reader->file());
  } catch (const CheckpointError& e) {
    session.fail(e.option(), e.what());
  } catch (const OptionError& e) {
    session.fail(e.option(), e.what());
  } catch (const nlohmann::json::exception& e) {
    session.fail("--restart", fmt::format("{}: problem options unreadable: {}",
                                          reader ? reader->file() : options.restart, e.what()));
  }
  return reader;
}

}  // namespace tessera
