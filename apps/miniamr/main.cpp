// miniamr: the miniAMR proxy application (Mantevo) as a solver on tessera's adaptive-mesh
// driver. See docs/apps/miniamr.md.
#include "options.hpp"
#include "solver.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

int main(int argc, char** argv) {
  tessera::Session session(argc, argv, "miniamr",
                           "miniAMR-compatible adaptive mesh refinement proxy, fully task-based");
  miniamr::Options options;
  miniamr::register_options(session, options);
  session.start();
  // A restart takes the problem options from the checkpoint; options given again must agree.
  auto restart = tessera::open_restart(session, options.run.checkpoint, "miniamr");
  miniamr::validate_options(session, options);
  miniamr::Solver solver(session, options);
  tessera::AmrDriverOptions driver_options =
      miniamr::driver_options(options, session.option_registry().problem());
  session.check_memory(
      "--max_blocks/--num_refine/--num_vars/--nx/--ny/--nz",
      miniamr::memory_needed(options, driver_options, solver.fields(), session.size()));
  return tessera::run_guarded([&] {
    tessera::AmrDriver driver(session, solver, std::move(driver_options), std::move(restart));
    session.set_phase("run");
    const int code = driver.run();
    if (code == 0) session.finish(driver.json());
    return code;
  });
}
