#pragma once
// The run options every app on the adaptive-mesh driver shares (layer `driver`), declared
// once in the app's OptionRegistry with the shared vocabulary (docs/options.md) and bound
// to the AmrDriverOptions the app hands to the driver.

#include <string>

#include "tessera/driver/amr_driver.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/session.hpp"

namespace tessera {

/// Declares, as run options bound to `o` (their current values are the defaults):
/// --max-cycles, --history, --output-every (alias --plot-every), --output-dir,
/// --output-prefix, --progress-every, --send-faces, --max-comm-tasks, --separate-buffers,
/// --no-replay and the checkpoint options (`step_name` in their help, "cycles"); the
/// parser checks the counts (at_least: --progress-every >= 1, the others >= 0). Main
/// thread, before Session::start.
void declare_amr_driver_options(OptionRegistry& registry, AmrDriverOptions& o,
                                const std::string& step_name = "cycles");

/// Checks what the parser cannot of the values declare_amr_driver_options bound (after
/// Session::start): the --output-prefix characters and, when plot files are due, that the
/// --output-dir can be written. A bad one stops every rank with one line naming the option
/// (Session::fail).
void check_amr_driver_options(Session& session, const AmrDriverOptions& o);

}  // namespace tessera
