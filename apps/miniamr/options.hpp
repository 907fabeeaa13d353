#pragma once
// miniamr's options: the reference miniAMR's names and defaults, plus the paper's
// communication options. Registered on the Session's parser, validated on every rank.

#include <array>
#include <string>
#include <vector>

#include "objects.hpp"
#include "tessera/balance_options.hpp"
#include "tessera/driver/amr_driver.hpp"
#include "tessera/io/checkpoint_options.hpp"
#include "tessera/session.hpp"

namespace miniamr {

struct Options {
  std::array<int, 3> block_cells{10, 10, 10};  // --nx --ny --nz
  std::array<int, 3> init_blocks{1, 1, 1};     // --init_x --init_y --init_z
  std::array<int, 3> rank_grid{1, 1, 1};       // --npx --npy --npz
  int max_blocks = 500;
  int num_refine = 5;
  int block_change = 0;  // 0 = num_refine
  int uniform_refine = 0;
  int refine_freq = 5;
  int num_vars = 40;
  int comm_vars = 0;  // 0 = num_vars
  int num_tsteps = 20;
  int stages_per_ts = 20;
  int checksum_freq = 5;
  int stencil = 7;
  int error_tol = 8;
  int num_objects = 0;
  std::vector<tessera::RefineObject> objects;
  bool send_faces = false;
  int max_comm_tasks = 0;
  bool separate_buffers = false;
  bool report_diffusion = false;
  int report_perf = 12;
  int lb_opt = 1;
  int inbalance = 0;
  int plot_freq = 0;
  std::string plot_prefix = "miniamr_mesh";
  tessera::CheckpointOptions checkpoint;
  tessera::BalanceOptions balance;  ///< --balance count | cost (with --lb_opt 1 or 2)

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

/// The bytes one of `ranks` ranks needs (for Session::check_memory after validation): the
/// driver's fields (amr_field_memory of `driver` and `fields`) on its share of the most
/// blocks the run may hold (--max_blocks per miniAMR rank, or what --num_refine levels can
/// reach from the root blocks, if fewer; none without objects or uniform refinement),
/// plus per-block metadata.
tessera::MemoryEstimate memory_needed(const Options& options,
                                      const tessera::AmrDriverOptions& driver,
                                      const std::vector<tessera::FieldSpec>& fields, int ranks);

/// Adds the options to the session's parser; `raw_objects` receives the --object values.
void register_options(tessera::Session& session, Options& options,
                      std::vector<std::vector<double>>& raw_objects);

/// Checks every option (after Session::start); on a bad value calls session.fail naming
/// the option, which exits on every rank. Fills options.objects from raw_objects.
void validate_options(tessera::Session& session, Options& options,
                      const std::vector<std::vector<double>>& raw_objects);

/// The options that define the problem (the registry's problem options and --object),
/// keyed by option name, as a checkpoint stores them.
nlohmann::json problem_options(tessera::Session& session,
                               const std::vector<std::vector<double>>& raw_objects);

/// The driver's run: miniAMR's unit cube of level-0 blocks, a fixed step of 1 per timestep,
/// refinement and load balancing as the options say, plot files and checkpoints.
tessera::AmrDriverOptions driver_options(const Options& options, nlohmann::json problem);

}  // namespace miniamr
