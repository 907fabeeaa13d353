// euler: compressible Euler equations on tessera's adaptive block mesh (VL2 + PLM + HLLC, the
// scheme Athena++ runs by default), a solver on the driver. See docs/apps/euler.md.
#include "options.hpp"
#include "solver.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

int main(int argc, char** argv) {
  tessera::Session session(argc, argv, "euler",
                           "compressible Euler equations (VL2, PLM, HLLC) on the block mesh");
  euler::Options options;
  euler::register_options(session, options);
  session.start();
  // A restart takes the problem options from the checkpoint; those given again must agree.
  auto restart = tessera::open_restart(session, options.driver.checkpoint, "euler");
  euler::validate_options(session, options);
  const tessera::AmrDriverOptions driver_options = euler::driver_options(
      options, euler::make_geometry(options), session.size(), session.option_registry().problem());
  session.check_memory(
      options.max_level > 0 ? "--cells/--block-cells/--max-level/--max-blocks-per-rank"
                            : "--cells/--block-cells",
      euler::memory_needed(options, driver_options, session.size(), session.runtime().threads()));
  return tessera::run_guarded([&] {
    euler::Solver solver(session, options);
    tessera::AmrDriver driver(session, solver, driver_options, std::move(restart));
    const int code = driver.run();
    if (code != 0) return code;
    session.finish(driver.json());
    return 0;
  });
}
