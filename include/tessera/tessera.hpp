#pragma once
// The whole public API of tessera in one include, layer by layer from the bottom up:
// base (MPI check, atomic file writes, clocks), runtime (tasks, handles, waits), comm (task-aware
// MPI), exec (execution models), mesh (uniform block meshes and halos), amr (adaptive forests on
// p4est), obs (traces and run statistics), io (checkpoint and plot files), the Session every app
// starts with, and driver (solvers on the adaptive mesh: declared fields, callbacks, the cycle
// loop).

#include "tessera/base/atomic_file.hpp"
#include "tessera/base/check_mpi.hpp"
#include "tessera/base/monotonic_clock.hpp"
#include "tessera/base/tick_clock.hpp"

#include "tessera/runtime/compute_hook.hpp"
#include "tessera/runtime/cost_table.hpp"
#include "tessera/runtime/handle.hpp"
#include "tessera/runtime/memory_estimate.hpp"
#include "tessera/runtime/observer.hpp"
#include "tessera/runtime/out_of_memory.hpp"
#include "tessera/runtime/runtime.hpp"

#include "tessera/comm/comm.hpp"
#include "tessera/comm/compute_model.hpp"
#include "tessera/comm/exact_sum.hpp"

#include "tessera/exec/exec_model.hpp"

#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/block_index.hpp"
#include "tessera/mesh/block_layout.hpp"
#include "tessera/mesh/block_view.hpp"
#include "tessera/mesh/box.hpp"
#include "tessera/mesh/direction.hpp"
#include "tessera/mesh/ghost_exchange.hpp"
#include "tessera/mesh/grid_view.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/level_hierarchy.hpp"
#include "tessera/mesh/level_transfer.hpp"
#include "tessera/mesh/morton.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/mesh/weighted_split.hpp"
#include "tessera/mesh/block_migration.hpp"
#include "tessera/mesh/wavefront_order.hpp"

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/carried_costs.hpp"
#include "tessera/amr/flux_correction.hpp"
#include "tessera/amr/forest.hpp"
#include "tessera/amr/halo.hpp"
#include "tessera/amr/marking.hpp"
#include "tessera/amr/mesh.hpp"
#include "tessera/io/block_field_checkpoint.hpp"
#include "tessera/io/checkpoint_content.hpp"
#include "tessera/io/checkpoint_options.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/io/plot_file.hpp"

#include "tessera/obs/run_stats.hpp"
#include "tessera/obs/trace_recorder.hpp"

#include "tessera/balance_options.hpp"
#include "tessera/memory_check.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

#include "tessera/driver/amr_driver.hpp"
#include "tessera/driver/amr_solver.hpp"
#include "tessera/driver/cell_output.hpp"
#include "tessera/driver/cell_walk.hpp"
#include "tessera/driver/domain.hpp"
#include "tessera/driver/field_spec.hpp"
#include "tessera/driver/mesh_checkpoint.hpp"
#include "tessera/driver/solver_block.hpp"
