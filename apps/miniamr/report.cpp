#include "report.hpp"

#include <algorithm>

namespace miniamr {

void print_report(tessera::Session& session, const Options& o, const RunTotals& t,
                  const std::map<std::string, double>& phases) {
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
    const auto& obj = o.objects[i];
    session.say("Object {} is the {}", i, tessera::object_type_name(obj.type));
    session.say("  bounce {} centre {} {} {} move {} {} {} size {} {} {} growth {} {} {}",
                obj.bounce, obj.center[0], obj.center[1], obj.center[2], obj.move[0], obj.move[1],
                obj.move[2], obj.size[0], obj.size[1], obj.size[2], obj.growth[0], obj.growth[1],
                obj.growth[2]);
  }
  session.say(
      "Number of timesteps {} (done {}), stages per timestep {}, checksum every {} stages, "
      "refinement every {} timesteps",
      o.num_tsteps, t.timesteps_done, o.stages_per_ts, o.checksum_freq, o.refine_freq);
  session.say("{}-point stencil, error tolerance 10^-{}", o.stencil, o.error_tol);
  session.say("");
  session.say("Total time for test (sec): {:.4f}  (time stepping and refinement: {:.4f})",
              t.total_seconds, t.loop_seconds);
  session.say("");
  session.say("Phases (main-thread wall time on rank 0, sec; overlapping under dataflow):");
  for (const auto& [name, seconds] : phases) session.say("     {:<16} {:10.4f}", name, seconds);
  session.say("");
  session.say("Computational Performance");
  session.say("     Total floating point ops  {:.6e}", t.flops);
  session.say("     total GFLOPS              {:.4f}  (ops / time stepping wall time / 1e9)",
              t.loop_seconds > 0 ? t.flops / t.loop_seconds / 1e9 : 0.0);
  session.say("     Average GFLOPS per rank   {:.4f}",
              t.loop_seconds > 0 ? t.flops / t.loop_seconds / 1e9 / session.size() : 0.0);
  session.say("");
  std::int64_t min_b = 0, max_b = 0;
  if (!t.refinements.empty()) {
    min_b = max_b = t.refinements.front().total;
    for (const auto& r : t.refinements) {
      min_b = std::min(min_b, r.total);
      max_b = std::max(max_b, r.total);
    }
  } else if (!t.blocks_per_step.empty()) {
    min_b = max_b = t.blocks_per_step.front();
  }
  const double stages = static_cast<double>(std::max(1, t.timesteps_done)) * o.stages_per_ts;
  session.say("Mesh Refinement");
  session.say("     Number of refinement steps     {}", t.refine_steps);
  session.say("     Number of load balance steps   {}", t.balance_steps);
  session.say("     Total blocks                   {}", t.total_blocks);
  session.say("     Blocks/timestep ave, min, max  {:.2f} {} {}",
              static_cast<double>(t.total_blocks) / stages, min_b, max_b);
  session.say("     Max blocks on a rank           {}", t.max_blocks_per_rank);
  session.say("     Total blocks split             {}", t.splits);
  session.say("     Total blocks reformed          {}", t.merges);
  session.say("     Total blocks moved             {}", t.moved);
  session.say("");
  session.say("Checksums: {} ({}), final checksum {}", t.checksums,
              t.validation_failed ? "validation FAILED" : "all validated", t.checksum_hex);
  session.say("");
  session.say("================== End report ===================");
  session.say("Summary: ranks {} threads {} ts {} time {:.4f} blocks/ts {:.2f} max_blocks {}",
              session.size(), session.runtime().threads(), t.timesteps_done, t.total_seconds,
              static_cast<double>(t.total_blocks) / stages, t.max_blocks_per_rank);
}

}  // namespace miniamr
