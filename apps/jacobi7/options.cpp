#include "options.hpp"

#include <CLI/CLI.hpp>

namespace tessera::jacobi7 {

nlohmann::json problem_options(const Options& o) {
  return {{"--blocks", o.blocks},
          {"--block-cells", o.block_cells},
          {"--check-every", o.check_every},
          {"--work", o.work}};
}

void restore_problem_options(const nlohmann::json& j, Options& o) {
  j.at("--blocks").get_to(o.blocks);
  j.at("--block-cells").get_to(o.block_cells);
  j.at("--check-every").get_to(o.check_every);
  j.at("--work").get_to(o.work);
}

void add_options(CLI::App& cli, Options& o) {
  cli.add_option("--blocks", o.blocks, "global block grid BX BY BZ (default 4 4 4)")
      ->expected(3)
      ->check(CLI::Range(1, 1 << 21));
  cli.add_option("--block-cells", o.block_cells,
                 "cells per block NX NY NZ (default 16 16 16); NZ = 1 with BZ = 1 is 2-D")
      ->expected(3)
      ->check(CLI::Range(1, 1 << 20));
  cli.add_option("--iters", o.iters, "Jacobi iterations (default 100)")
      ->check(CLI::Range(0, 1 << 30));
  cli.add_option("--check-every", o.check_every,
                 "compute residual and error every K iterations, validated one check late; "
                 "0 = only after the last iteration (default 10)")
      ->check(CLI::Range(0, 1 << 30));
  cli.add_flag("--send-faces", o.halo.send_faces,
               "one message per block face instead of one per neighbour rank and direction");
  cli.add_option("--max-comm-tasks", o.halo.max_comm_tasks,
                 "at most K messages per neighbour rank and direction; 0 = no limit (default)")
      ->check(CLI::Range(0, 1 << 20));
  cli.add_flag("--separate-buffers", o.halo.separate_buffers,
               "distinct message buffers per direction, so directions do not wait for each "
               "other");
  cli.add_flag("--copy-local-ghosts", o.halo.copy_local,
               "fill ghosts facing blocks of this rank by copy tasks instead of reading those "
               "blocks in place in the sweep (same results; for comparison)");
  cli.add_option("--work", o.work,
                 "benchmarking: full (default) | compute (sweeps, and local copies with "
                 "--copy-local-ghosts; no messages) | halo (halo exchanges only, no sweeps); "
                 "compute and halo do not solve the problem")
      ->check(CLI::IsMember({"full", "compute", "halo"}));
  cli.add_option("--wavefront-depth", o.wavefront_depth,
                 "temporal blocking: sweep D iterations together as a wavefront across this "
                 "rank's blocks, so blocks are reused from cache (dataflow; same results); "
                 "0 = off (default)")
      ->check(CLI::Range(0, 64));
  cli.add_option("--time-tile", o.time_tile,
                 "temporal blocking inside blocks: each block task runs D iterations in one "
                 "pass over its block, from ghosts D deep exchanged every D iterations (same "
                 "results); --check-every and --checkpoint-every must be multiples of D, D at "
                 "most the smallest block edge; 1 = one sweep per task (default)")
      ->check(CLI::Range(1, 64));
  o.checkpoint.add_to(cli, "iterations");
}

}  // namespace tessera::jacobi7
