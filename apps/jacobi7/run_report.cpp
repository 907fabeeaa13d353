// jacobi7's end of run: the summary line and the report's fields, from the run's figures
// and options.

#include "run_report.hpp"

#include <algorithm>
#include <utility>

#include "jacobi_kernels.hpp"

namespace tessera::jacobi7 {

void report_run(Session& session, const Options& options, const RunFigures& figures) {
  const Int3 n = figures.cells;
  const std::int64_t restarted_from = figures.restarted_from;
  const double solve_s = figures.solve.solve_s;
  const CheckResult& last = figures.last;
  // Iterations this run did (a restarted run starts at the checkpoint's step).
  const std::int64_t done =
      std::max<std::int64_t>(0, options.iters - std::max<std::int64_t>(0, restarted_from));
  const double updates = static_cast<double>(product(n)) * static_cast<double>(done);
  const double updates_per_s = solve_s > 0 ? updates / solve_s : 0.0;
  const double bandwidth = updates_per_s * kBytesPerCellUpdate;
  session.say(
      "jacobi7: {} iterations on {} x {} x {} cells: residual {:.6e}, error {:.6e} vs "
      "the exact solution; {:.3f} s, {:.3e} cell updates/s, {:.2f} GB/s effective",
      options.iters, n.x, n.y, n.z, last.residual, last.error, solve_s, updates_per_s,
      bandwidth / 1e9);

  nlohmann::json fields = {
      {"checksum", hex_bits(figures.checksum)},
      {"checksum_value", figures.checksum},
      {"iters", options.iters},
      {"residual", last.residual},
      {"error", last.error},
      {"history", history_json(*figures.history)},
      {"cells", {n.x, n.y, n.z}},
      {"blocks", options.blocks},
      {"block_cells", options.block_cells},
      {"work", options.work},
      {"halo",
       {{"send_faces", options.halo.send_faces},
        {"max_comm_tasks", options.halo.max_comm_tasks},
        {"separate_buffers", options.halo.separate_buffers},
        {"copy_local_ghosts", options.halo.copy_local},
        {"fused_packing", options.fused_packing}}},
      {"wavefront_depth", options.wavefront_depth},
      {"time_tile", options.time_tile},
      {"priorities", session.options().priorities},
      {"solve_s", solve_s},
      {"cell_updates_per_s", updates_per_s},
      {"bytes_per_cell_update", kBytesPerCellUpdate},
      {"effective_bandwidth_gbs", bandwidth / 1e9},
      {"checkpoint", figures.checkpoint},
      {"balance",
       {{"mode", options.balance.balance},
        {"repartitions", figures.solve.repartitions},
        {"blocks_moved", figures.solve.blocks_moved},
        {"local_blocks", figures.local_blocks}}},
  };
  session.finish(std::move(fields));
}

}  // namespace tessera::jacobi7
