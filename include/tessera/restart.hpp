#pragma once
// Opening the checkpoint a --restart names, the same in every app: the problem options a
// restart continues with come from the checkpoint, and those given again on the command
// line must agree with it.

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera/io/checkpoint_options.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/session.hpp"

namespace tessera {

class OptionRegistry;

/// Declares the checkpoint options (--checkpoint-every, --checkpoint-dir, --keep,
/// --restart; docs/options.md) bound to `options`, with `step_name` ("iterations",
/// "cycles", ...) in the help text. All are run options: a restart may change them.
void declare_checkpoint_options(OptionRegistry& registry, CheckpointOptions& options,
                                const std::string& step_name);

/// Null when `options` do not restart. Otherwise opens the checkpoint of app `app`, checks
/// that every problem option given on the command line agrees with the checkpoint's
/// (`given`: the app's problem options as parsed, keyed by option name), and passes the
/// checkpoint's problem options to `restore`, which takes them over. A missing, foreign or
/// unreadable checkpoint or a disagreeing option stops every rank with one line naming the
/// option (Session::fail).
std::unique_ptr<CheckpointReader> open_restart(
    Session& session, const CheckpointOptions& options, const std::string& app,
    const nlohmann::json& given, const std::function<void(const nlohmann::json&)>& restore);

/// As above for an app whose problem options are declared (OptionRole::problem) in
/// session.option_registry(): a declared problem option given on the command line or in
/// the --config file must agree with the checkpoint's; the others take its values.
std::unique_ptr<CheckpointReader> open_restart(Session& session, const CheckpointOptions& options,
                                               const std::string& app);

/// Runs `read`, the app's restore from `reader` (its blocks and its header state), and
/// measures it: a CheckpointError, or state in the header that is missing or of the wrong
/// type (nlohmann::json::exception), stops every rank with one line naming the option
/// (Session::fail). Returns read_s and read_phases_s from the reader and restore_s, the
/// wall time of `read`; restarted_from is left to the caller (the step it continues from).
CheckpointRestore restore_checkpoint(Session& session, CheckpointReader& reader,
                                     const std::function<void()>& read);

}  // namespace tessera
