#include "tessera/driver/driver_options.hpp"

#include <fmt/format.h>

#include "tessera/balance_options.hpp"
#include "tessera/io/plot_file.hpp"
#include "tessera/restart.hpp"

namespace tessera {

void declare_amr_driver_options(OptionRegistry& registry, AmrDriverOptions& o,
                                const std::string& step_name) {
  registry.add("--max-cycles", o.max_cycles, "stop after this many cycles; 0 = no limit")
      ->check(at_least(0));
  registry.add("--history", o.history,
               "CSV file: per cycle the time, the step, the state's totals and the blocks");
  registry
      .add("--output-every,--plot-every", o.output_every,
           "write a plot file (HDF5 + XDMF, docs/output.md) at cycle 0, every this many "
           "cycles and at the end; 0 = never (default)")
      ->check(at_least(0));
  registry.add("--output-dir", o.output_dir,
               "directory of the plot files, created if missing (default .)");
  registry.add("--output-prefix", o.output_prefix,
               fmt::format("plot file names: <prefix>_<cycle>.h5 and .xmf, series "
                           "<prefix>.xdmf (default {})",
                           o.output_prefix));
  registry
      .add("--progress-every", o.progress_every,
           fmt::format("cycles between progress lines (default {})", o.progress_every))
      ->check(at_least(1));
  registry.add_flag("--send-faces", o.send_faces,
                    "one message per block face instead of one per neighbour rank and axis");
  registry
      .add("--max-comm-tasks", o.max_comm_tasks,
           "with --send-faces: most messages per neighbour rank and axis; 0 = one per face")
      ->check(at_least(0));
  registry.add_flag("--separate-buffers", o.separate_buffers,
                    "a message buffer per axis (the axes' messages do not wait for each other)");
  registry.add_flag(
      "!--no-replay", o.replay,
      "submit every cycle's tasks instead of replaying the recorded cycle (dataflow)");
  registry.add_flag("!--no-lookahead", o.lookahead,
                    "submit a cycle only after the previous cycle's step reduction completed "
                    "(dataflow; by default the next cycle's ghost exchange starts while the "
                    "reduction is in flight)");
  declare_checkpoint_options(registry, o.checkpoint, step_name);
  declare_balance_options(registry, o.balance, false);
}

void check_amr_driver_options(Session& session, const AmrDriverOptions& o) {
  if (o.output_prefix.empty() ||
      o.output_prefix.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-.") != std::string::npos)
    session.fail("--output-prefix",
                 fmt::format("must be letters, digits, _ - or ., got '{}'", o.output_prefix));
  if (o.output_every > 0)
    if (const std::string why = output_directory_problem(o.output_dir); !why.empty())
      session.fail("--output-dir", why);
}

}  // namespace tessera
