// miniamr: the miniAMR proxy application (Mantevo) as a tessera task graph.
// See docs/apps/miniamr.md.
#include "driver.hpp"
#include "options.hpp"
#include "report.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

int main(int argc, char** argv) {
  tessera::Session session(argc, argv, "miniamr",
                           "miniAMR-compatible adaptive mesh refinement proxy, fully task-based");
  miniamr::Options options;
  std::vector<std::vector<double>> raw_objects;
  miniamr::register_options(session, options, raw_objects);
  session.start();
  miniamr::validate_options(session, options, raw_objects);
  // A restart takes the problem options from the checkpoint; options given again must agree.
  std::unique_ptr<tessera::CheckpointReader> restart = tessera::open_restart(
      session, options.checkpoint, "miniamr", miniamr::problem_options(options, raw_objects),
      [&](const nlohmann::json& stored) {
        miniamr::restore_problem_options(stored, options, raw_objects);
      });
  if (restart) miniamr::validate_options(session, options, raw_objects);
  session.check_memory("--max_blocks/--num_refine/--num_vars/--nx/--ny/--nz",
                       miniamr::memory_needed(options, session.size()));
  return tessera::run_guarded([&] {
    miniamr::Driver driver(session, options, miniamr::problem_options(options, raw_objects),
                           restart.get());
    session.set_phase("run");
    const int code = driver.run();
    if ((options.report_perf & 4) != 0)
      miniamr::print_report(session, options, driver.totals(), session.exec().phase_seconds());
    session.finish(driver.json());
    return code;
  });
}
