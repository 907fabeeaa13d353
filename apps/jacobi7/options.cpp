#include "options.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <limits>

#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

namespace tessera::jacobi7 {

void declare_options(OptionRegistry& registry, Options& o) {
  constexpr OptionRole problem = OptionRole::problem;
  registry.add("--blocks", o.blocks, "global block grid BX BY BZ", problem)
      ->expected(3)
      ->check(CLI::Range(1, 1 << 21));
  registry
      .add("--block-cells", o.block_cells, "cells per block NX NY NZ; NZ = 1 with BZ = 1 is 2-D",
           problem)
      ->expected(3)
      ->check(CLI::Range(1, 1 << 20));
  registry.add("--iterations,--iters", o.iters, "Jacobi iterations (run length)")
      ->check(CLI::Range(0, 1 << 30));
  registry
      .add("--check-every", o.check_every,
           "compute residual and error every K iterations, validated one check late; 0 = only "
           "after the last iteration",
           problem)
      ->check(CLI::Range(0, 1 << 30));
  registry.add_flag("--send-faces", o.halo.send_faces,
                    "one message per block face instead of one per neighbour rank and direction");
  registry
      .add("--max-comm-tasks", o.halo.max_comm_tasks,
           "at most K messages per neighbour rank and direction; 0 = no limit")
      ->check(CLI::Range(0, 1 << 20));
  registry.add_flag("--separate-buffers", o.halo.separate_buffers,
                    "distinct message buffers per direction, so directions do not wait for each "
                    "other");
  registry.add_flag("--copy-local-ghosts", o.halo.copy_local,
                    "fill ghosts facing blocks of this rank by copy tasks instead of reading "
                    "those blocks in place in the sweep (same results; for comparison)");
  registry
      .add("--work", o.work,
           "benchmarking: full | compute (sweeps, and local copies with --copy-local-ghosts; no "
           "messages) | halo (halo exchanges only, no sweeps); compute and halo do not solve "
           "the problem",
           problem)
      ->check(CLI::IsMember({"full", "compute", "halo"}));
  registry
      .add("--wavefront-depth", o.wavefront_depth,
           "temporal blocking: sweep D iterations together as a wavefront across this rank's "
           "blocks, so blocks are reused from cache (dataflow; same results); 0 = off")
      ->check(CLI::Range(0, 64));
  registry
      .add("--time-tile", o.time_tile,
           "temporal blocking inside blocks: each block task runs D iterations in one pass over "
           "its block, from ghosts D deep exchanged every D iterations (same results); "
           "--check-every and --checkpoint-every must be multiples of D, D at most the "
           "smallest block edge; 1 = one sweep per task")
      ->check(CLI::Range(1, 64));
  registry
      .add("--fused-packing", o.fused_packing,
           "faces towards other ranks: receive (the sweeps read the ghosts in place from the "
           "receive buffer, no unpack tasks; pack tasks fill the send buffer) | all (the "
           "sweeps also write their faces into the send buffer, no pack tasks either) | x "
           "(all for x faces only) | none (pack and unpack tasks); same results")
      ->check(CLI::IsMember({"none", "x", "receive", "all"}));
  declare_checkpoint_options(registry, o.checkpoint, "iterations");
  declare_balance_options(registry, o.balance, true);
}

std::uint8_t fused_axes(const Options& o) {
  if (o.time_tile > 1 || o.work != "full" || o.fused_packing == "none") return 0;
  return o.fused_packing == "x" ? 1 : 7;
}

// The halo a sweep needs: with --time-tile D > 1, all 26 neighbours D cells deep, local
// ghosts filled by one copy task per block (a tile reads its grown block from its own
// array), and separate buffers: with shared ones the 26 directions would be exchanged one
// after the other (26 rounds of messages per tile instead of one); otherwise the options
// as given.
HaloOptions halo_options(const Options& o) {
  HaloOptions halo = o.halo;
  if (o.time_tile > 1) {
    halo.shape = HaloShape::full;
    halo.copy_local = true;
    halo.copy_per_block = true;
    halo.separate_buffers = true;
  }
  // Sweeps fill and read the sections of every direction at once: each needs its own memory.
  if (fused_axes(o) != 0) halo.separate_buffers = true;
  return halo;
}

// --time-tile D needs ghosts D deep (at most a block's edge) and states only at multiples of
// D: checks and checkpoints must fall there. Same verdict on every rank.
void validate_time_tile(Session& session, const Options& o, Int3 blocks, Int3 cells) {
  const int d = o.time_tile;
  if (d == 1) return;
  int smallest = std::numeric_limits<int>::max();
  for (int a = 0; a < 3; ++a)
    if (!(blocks[a] == 1 && cells[a] == 1)) smallest = std::min(smallest, cells[a]);
  if (d > smallest) {
    session.fail("--time-tile", fmt::format("{} is deeper than the smallest block edge ({} cells): "
                                            "allowed 1 to {}",
                                            d, smallest, smallest));
  }
  if (o.check_every % d != 0) {
    session.fail("--check-every", fmt::format("{} is not a multiple of --time-tile {}: allowed 0 "
                                              "or a multiple of {}",
                                              o.check_every, d, d));
  }
  if (o.checkpoint.every % d != 0) {
    session.fail(
        "--checkpoint-every",
        fmt::format("{} is not a multiple of --time-tile {}: allowed 0 or a multiple of {}",
                    o.checkpoint.every, d, d));
  }
  if (o.wavefront_depth > 0) {
    session.fail(
        "--wavefront-depth",
        fmt::format("cannot be combined with --time-tile {}: allowed 0 with a time tile", d));
  }
}

}  // namespace tessera::jacobi7
