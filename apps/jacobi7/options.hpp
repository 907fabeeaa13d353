#pragma once
// jacobi7's command-line options: what they hold, which of them define the problem (a
// restart takes those from the checkpoint), and their registration with the parser.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/balance_options.hpp"
#include "tessera/io/checkpoint_options.hpp"
#include "tessera/mesh/box.hpp"
#include "tessera/mesh/halo_plan.hpp"

namespace tessera {
class OptionRegistry;
class Session;
}  // namespace tessera

namespace tessera::jacobi7 {

struct Options {
  std::vector<int> blocks{4, 4, 4};
  std::vector<int> block_cells{16, 16, 16};
  int iters = 100;
  int check_every = 10;
  // Local faces are read in place by the kernels unless --copy-local-ghosts.
  HaloOptions halo{.copy_local = false};
  std::string work = "full";
  int wavefront_depth = 0;  // 0: sweeps in plain dependency order
  int time_tile = 1;        // iterations per block task (PlanePipeline); 1: one sweep each
  std::string fused_packing = "receive";  // none | x | receive | all (fused_axes)
  CheckpointOptions checkpoint;
  BalanceOptions balance;  // --balance, --balance-after, --balance-every
};

/// Declares every jacobi7 option (and the checkpoint options) in `registry`, bound to `o`.
/// The grid, --check-every and --work define the problem (a restart takes them from the
/// checkpoint); the run length, halo options and run-time options may change between runs.
void declare_options(OptionRegistry& registry, Options& o);
/// The halo options a sweep needs: with --time-tile D > 1 a full halo D deep (see the
/// definition for why), otherwise the options as given.
HaloOptions halo_options(const Options& o);
/// The axes (HaloFusion mask: x = 1, y = 2, z = 4) whose faces towards other ranks the
/// sweeps pack into the send buffer and read from the receive buffer (--fused-packing):
/// none with --time-tile > 1 or --work other than full, whose exchanges pack by tasks.
std::uint8_t fused_axes(const Options& o);
/// Refuses, through session.fail on every rank, a --time-tile deeper than the smallest
/// block edge or combined with checks, checkpoints or a wavefront not at its multiples.
void validate_time_tile(Session& session, const Options& o, Int3 blocks, Int3 cells);

}  // namespace tessera::jacobi7
