// The end-of-run report on stdout, in the spirit of miniAMR's (--report_perf bit 4).
#include <algorithm>

#include "solver.hpp"

namespace miniamr {

void Solver::print_report(const tessera::AmrDriver& d) const {
  tessera::Session& session = session_;
  const Options& o = options_;
  const nlohmann::json t = report(d);
  const double loop_s = d.loop_seconds();
  const auto roots = o.root_blocks();
  session.say("================ Start report ===================");
  session.say("");
  session.say("          tessera miniamr (miniAMR-compatible, task-based)");
  session.say("");
  session.say("Run on {} ranks x {} threads, execution model {}", session.size(),
              session.runtime().threads(), tessera::to_string(session.options().exec));
  session.say("Initial mesh of {} x {} x {} level-0 blocks (npx*init_x x npy*init_y x npz*init_z)",
              roots[0], roots[1], roots[2]);
  session.say("Block size {} x {} x {}, {} variables, {} per communication group", o.block_cells[0],
              o.block_cells[1], o.block_cells[2], o.num_vars, o.variables_per_group());
  session.say("Maximum blocks {} per miniAMR rank; {} levels of refinement; block_change {}",
              o.max_blocks, o.num_refine, o.refine_iterations_later());
  session.say(
      "Load balancing: lb_opt {}, threshold {}% ; messages: {}{}{}", o.lb_opt, o.inbalance,
      o.send_faces ? "one per face" : "one per neighbour rank and axis",
      o.send_faces && o.max_comm_tasks > 0 ? fmt::format(" (at most {})", o.max_comm_tasks) : "",
      o.separate_buffers ? ", separate buffers per axis" : "");
  for (std::size_t i = 0; i < o.objects.size(); ++i) {
    const auto& obj = o.objects[i];  // as given
    session.say("Object {} is the {}", i, tessera::object_type_name(obj.type));
    session.say("  bounce {} centre {} {} {} move {} {} {} size {} {} {} growth {} {} {}",
                obj.bounce, obj.center[0], obj.center[1], obj.center[2], obj.move[0], obj.move[1],
                obj.move[2], obj.size[0], obj.size[1], obj.size[2], obj.growth[0], obj.growth[1],
                obj.growth[2]);
  }
  session.say(
      "Number of timesteps {} (done {}), stages per timestep {}, checksum every {} stages, "
      "refinement every {} timesteps",
      o.num_tsteps, d.cycle(), o.stages_per_ts, o.checksum_freq, o.refine_freq);
  session.say("{}-point stencil, error tolerance 10^-{}", o.stencil, o.error_tol);
  session.say("");
  session.say("Total time for test (sec): {:.4f}  (time stepping and refinement: {:.4f})",
              total_seconds_, loop_s);
  session.say("");
  session.say("Phases (main-thread wall time on rank 0, sec; overlapping under dataflow):");
  for (const auto& [name, seconds] : session.exec().phase_seconds())
    session.say("     {:<16} {:10.4f}", name, seconds);
  session.say("");
  session.say("Computational Performance");
  const double gflops = t["gflops"].get<double>();
  session.say("     Total floating point ops  {:.6e}", t["flops"].get<double>());
  session.say("     total GFLOPS              {:.4f}  (ops / time stepping wall time / 1e9)",
              gflops);
  session.say("     Average GFLOPS per rank   {:.4f}", gflops / session.size());
  session.say("");
  std::int64_t min_b = 0, max_b = 0;
  if (!refinements_.empty()) {
    min_b = max_b = refinements_.front().total;
    for (const auto& r : refinements_) {
      min_b = std::min(min_b, r.total);
      max_b = std::max(max_b, r.total);
    }
  } else if (!blocks_per_step_.empty()) {
    min_b = max_b = blocks_per_step_.front();
  }
  const double stages = static_cast<double>(std::max(1, d.cycle())) * o.stages_per_ts;
  const auto total_blocks = t["total_blocks"].get<std::int64_t>();
  session.say("Mesh Refinement");
  session.say("     Number of refinement steps     {}", refinements_.size());
  session.say("     Number of load balance steps   {}", d.repartitions());
  session.say("     Total blocks                   {}", total_blocks);
  session.say("     Blocks/timestep ave, min, max  {:.2f} {} {}",
              static_cast<double>(total_blocks) / stages, min_b, max_b);
  session.say("     Max blocks on a rank           {}", d.max_blocks_per_rank());
  session.say("     Total blocks split             {}", d.blocks_split());
  session.say("     Total blocks reformed          {}", d.families_merged());
  session.say("     Total blocks moved             {}", d.blocks_moved());
  session.say("");
  session.say("Checksums: {} ({}), final checksum {}", checksums_,
              validation_failed_ ? "validation FAILED" : "all validated",
              tessera::hex_bits(checksum_));
  session.say("");
  session.say("================== End report ===================");
  session.say("Summary: ranks {} threads {} ts {} time {:.4f} blocks/ts {:.2f} max_blocks {}",
              session.size(), session.runtime().threads(), d.cycle(), total_seconds_,
              static_cast<double>(total_blocks) / stages, d.max_blocks_per_rank());
}

}  // namespace miniamr
