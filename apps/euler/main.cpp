// euler: compressible Euler equations on tessera's block mesh (VL2 + PLM + HLLC, the scheme
// Athena++ runs by default). See docs/apps/euler.md.
#include "driver.hpp"
#include "euler_checkpoint.hpp"
#include "memory_needed.hpp"
#include "options.hpp"
#include "tessera/session.hpp"

int main(int argc, char** argv) {
  tessera::Session session(argc, argv, "euler",
                           "compressible Euler equations (VL2, PLM, HLLC) on the block mesh");
  euler::Options options;
  euler::register_options(session, options);
  session.start();
  auto restart = euler::open_restart(session, options);
  euler::validate_options(session, options);
  session.check_memory(options.max_level > 0
                           ? "--cells/--block-cells/--max-level/--max-blocks-per-rank"
                           : "--cells/--block-cells",
                       euler::memory_needed(options, session.size(), session.runtime().threads()));
  return tessera::run_guarded([&] {
    euler::Driver driver(session, options, std::move(restart));
    const int code = driver.run();
    if (code != 0) return code;
    session.finish(driver.json());
    return 0;
  });
}
