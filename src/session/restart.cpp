#include "tessera/restart.hpp"

#include <fmt/format.h>

#include "tessera/io/checkpoint_content.hpp"

namespace tessera {

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

}  // namespace tessera
