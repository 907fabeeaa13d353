// euler: compressible Euler equations on tessera's adaptive block mesh (VL2 + PLM + HLLC by
// default, Athena++'s scheme; WENO5-Z, RK2, HLL as options; or ADER-DG with --scheme dg), a
// solver on the driver. See docs/apps/euler.md.
#include <memory>

#include "dg_solver.hpp"
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
  const bool dg = options.scheme_name == "dg";
  const tessera::AmrDriverOptions driver_options = euler::driver_options(
      options, dg ? euler::dg_geometry(options) : euler::make_geometry(options), session.size(),
      session.option_registry().problem());
  const int threads = session.runtime().threads();
  session.check_memory(
      options.max_level > 0 ? "--cells/--block-cells/--max-level/--max-blocks-per-rank"
                            : "--cells/--block-cells",
      dg ? euler::dg_memory_needed(options, driver_options, session.size(), threads)
         : euler::memory_needed(options, driver_options, session.size(), threads));
  return tessera::run_guarded([&] {
    std::unique_ptr<tessera::AmrSolver> solver;
    if (dg) {
      solver = std::make_unique<euler::DgSolver>(session, options);
    } else {
      solver = std::make_unique<euler::Solver>(session, options);
    }
    tessera::AmrDriver driver(session, *solver, driver_options, std::move(restart));
    const int code = driver.run();
    if (code != 0) return code;
    session.finish(driver.json());
    return 0;
  });
}
