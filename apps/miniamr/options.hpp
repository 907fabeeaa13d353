#pragma once
// miniamr's options: the reference miniAMR's names and defaults, plus the paper's
// communication options. Registered on the Session's parser, validated on every rank.

#include <array>
#include <string>
#include <vector>

#include "objects.hpp"
#include "tessera/driver/amr_driver.hpp"
#include "tessera/session.hpp"

namespace miniamr {

struct Options {
  std::array<int, 3> block_cells{10, 10, 10};  // --nx --ny --nz
  std::array<int, 3> init_blocks{1, 1, 1};     // --init_x --init_y --init_z
  std::array<int, 3> rank_grid{1, 1, 1};       // --npx --npy --npz
  // Each --name in register_options, with miniAMR's default.
  int max_blocks = 500, num_refine = 5, uniform_refine = 0, refine_freq = 5;
  int block_change = 0;              // 0 = num_refine
  int num_vars = 40, comm_vars = 0;  // comm_vars 0 = num_vars
  int stages_per_ts = 20, checksum_freq = 5, stencil = 7, error_tol = 8;
  int report_perf = 12, lb_opt = 1, inbalance = 0, num_objects = 0;
  bool report_diffusion = false;
  std::string plot_prefix = "miniamr_mesh";
  std::vector<std::vector<double>> raw_objects;  // the --object values as given
  std::vector<tessera::RefineObject> objects;    // parsed from raw_objects
  /// The driver's options the command line sets directly: --max-cycles (--num_tsteps),
  /// --send-faces, --max-comm-tasks, --separate-buffers, --plot_freq, checkpoint, --balance.
  tessera::AmrDriverOptions run;

  /// Level-0 blocks of the whole mesh along each axis: rank_grid * init_blocks.
  std::array<int, 3> root_blocks() const {
    return {rank_grid[0] * init_blocks[0], rank_grid[1] * init_blocks[1],
            rank_grid[2] * init_blocks[2]};
  }
  int variables_per_group() const {
    return comm_vars == 0 || comm_vars > num_vars ? num_vars : comm_vars;
  }
  int groups() const { return (num_vars + variables_per_group() - 1) / variables_per_group(); }
  int refine_iterations_later() const { return block_change == 0 ? num_refine : block_change; }
  bool moves_objects() const { return num_refine > 0 && uniform_refine == 0; }
};

/// Declares the options with their allowed values (before Session::start).
void register_options(tessera::Session& session, Options& options);

/// After Session::start and a restore, checks what the parser cannot (--max_blocks against
/// the initial blocks, the --object values: Session::fail) and parses options.objects.
void validate_options(tessera::Session& session, Options& options);

/// The driver's run: miniAMR's unit cube of level-0 blocks, a fixed step of 1 per timestep,
/// refinement and load balancing as the options say, plot files and checkpoints.
tessera::AmrDriverOptions driver_options(const Options& options, nlohmann::json problem);

/// The bytes one of `ranks` ranks needs (Session::check_memory): the driver's fields on its
/// share of the most blocks the run may hold (--max_blocks per miniAMR rank, or what
/// --num_refine levels reach from the root blocks if fewer), plus per-block metadata.
tessera::MemoryEstimate memory_needed(const Options& options,
                                      const tessera::AmrDriverOptions& driver,
                                      const std::vector<tessera::FieldSpec>& fields, int ranks);

}  // namespace miniamr
