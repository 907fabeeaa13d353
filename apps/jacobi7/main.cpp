// jacobi7: -Laplace(u) = f on the unit cube, u = 0 on the boundary, solved by Jacobi
// iterations with the 7-point stencil on a uniform block mesh, under any execution model.
//
// Every iteration exchanges the halo of u with other ranks (pack / send / receive / unpack
// tasks) and sweeps every block from u into v; a sweep reads the faces of neighbouring
// blocks of its own rank in place (or, with --copy-local-ghosts, from ghosts filled by
// local copy tasks). Every --check-every iterations the residual
// and the error against the manufactured solution are computed as tasks and summed exactly
// over ranks; a check is validated and printed only when the next one has been submitted,
// so the pipeline never drains for it. The final checksum is the exact sum of u over all
// cells: bitwise the same for every model, rank count, thread count and halo option.
//
// With --time-tile D, u's ghosts are D cells deep and exchanged (faces, edges and corners,
// local ghosts by copy) every D iterations, and one task per block runs those D iterations
// in one pass over the block (PlanePipeline), so u and f are read from memory and v
// written once per D iterations; every cell value is computed by the same row kernel from
// the same inputs as in D plain sweeps, so the bits do not change.
//
// The files: options.cpp (the options), solver.hpp and solver*.cpp (the iterations and
// their tasks), cost_balance.cpp (--balance cost), run_report.cpp (the summary and the
// report); the kernels in jacobi_kernels.cpp, face_sources.cpp and plane_pipeline.hpp.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cost_balance.hpp"
#include "face_sources.hpp"
#include "options.hpp"
#include "run_report.hpp"
#include "solver.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

namespace tessera::jacobi7 {
namespace {

Int3 to_int3(const std::vector<int>& v) {
  return {v[0], v[1], v[2]};
}

// What one rank allocates: the mesh with fields u, v, f (halo of u only), and per block the
// runtime handles (two per field, a sweep marker per iteration in flight) and the tasks of
// the iterations in flight.
MemoryEstimate memory_needed(Int3 blocks, Int3 cells, int ghost, int ranks, int lookahead) {
  MemoryEstimate need = UniformMesh::memory_estimate(blocks, cells, ghost, ranks, 3, 1);
  constexpr double kHandleBytes = 256, kTaskBytes = 512;
  const double local =
      std::ceil(static_cast<double>(blocks.x) * blocks.y * blocks.z / ranks);  // 2^63 fits
  need.add("metadata", local * (2 * sizeof(FaceSources) + (6 + lookahead) * kHandleBytes +
                                lookahead * 2 * kTaskBytes));
  need.add("column copies",
           local * 2 * 2 * static_cast<double>(cells.y) * cells.z * sizeof(double));
  return need;
}

int run(int argc, char** argv) {
  Session session(argc, argv, "jacobi7", "3-D Poisson, 7-point Jacobi on a uniform block mesh");
  Options options;
  declare_options(session.option_registry(), options);
  session.start();
  // A restart takes the problem options from the checkpoint; options given again must agree.
  std::unique_ptr<CheckpointReader> restart = open_restart(session, options.checkpoint, "jacobi7");

  const Int3 blocks = to_int3(options.blocks);
  const Int3 cells = to_int3(options.block_cells);
  if (std::int64_t{blocks.x} * cells.x < 2 || std::int64_t{blocks.y} * cells.y < 2) {
    session.fail("--blocks/--block-cells",
                 fmt::format("the x and y axes need at least 2 cells each (got {} x {})",
                             blocks.x * cells.x, blocks.y * cells.y));
  }
  validate_time_tile(session, options, blocks, cells);
  session.check_memory("--blocks/--block-cells",
                       memory_needed(blocks, cells, options.time_tile, session.size(),
                                     lookahead_iterations(options)));
  std::unique_ptr<UniformMesh> mesh;
  try {
    mesh = std::make_unique<UniformMesh>(blocks, cells, options.time_tile, session.rank(),
                                         session.size());
  } catch (const std::invalid_argument& e) {
    session.fail("--blocks/--block-cells", e.what());
  }

  // Made now: its constructor is a blocking collective, unsafe once messages fly.
  std::unique_ptr<CheckpointWriter> writer;
  if (options.checkpoint.every > 0)
    writer = std::make_unique<CheckpointWriter>(session.comm(), options.checkpoint);
  auto solver = std::make_unique<Solver>(session, options, *mesh, writer.get());
  CheckpointRestore restored;
  restored.restarted_from = restart ? restart->header().step : -1;
  const std::int64_t restarted_from = restored.restarted_from;
  if (restart) {
    restored = restore_checkpoint(session, *restart, [&] { solver->restore(*restart); });
    restored.restarted_from = restarted_from;
    session.progress("jacobi7: restarted from {} (iteration {}) on {} rank(s)", restart->file(),
                     restart->header().step, session.size());
    restart.reset();
  }
  const Int3 n = mesh->cells();
  session.progress(
      "jacobi7: {} x {} x {} cells in {} x {} x {} blocks of {} x {} x {}, {} "
      "iterations, {} on {} rank(s) x {} thread(s)",
      n.x, n.y, n.z, blocks.x, blocks.y, blocks.z, cells.x, cells.y, cells.z, options.iters,
      to_string(session.options().exec), session.size(), session.runtime().threads());
  session.set_phase("iterations");
  const int first = std::max<int>(0, static_cast<int>(std::max<std::int64_t>(0, restarted_from)));
  const SolveOutcome solve =
      solve_with_balance(session, options, blocks, cells, first, writer.get(), mesh, solver);
  const CheckResult last = solver->final_check();
  const double checksum = solver->checksum();
  report_run(session, options,
             RunFigures{.cells = n,
                        .restarted_from = restarted_from,
                        .solve = solve,
                        .last = last,
                        .history = &solver->history(),
                        .checksum = checksum,
                        .checkpoint = checkpoint_report(writer.get(), restored),
                        .local_blocks = mesh->local_block_count()});
  return 0;
}

}  // namespace
}  // namespace tessera::jacobi7

int main(int argc, char** argv) {
  return tessera::run_guarded([&] { return tessera::jacobi7::run(argc, argv); });
}
