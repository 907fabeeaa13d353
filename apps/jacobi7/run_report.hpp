#pragma once
// jacobi7's end of run: the summary line and the report's fields (docs/report.md).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

#include "cost_balance.hpp"
#include "options.hpp"
#include "solver.hpp"
#include "tessera/mesh/box.hpp"
#include "tessera/session.hpp"

namespace tessera::jacobi7 {

/// What a finished run found, beside its options.
struct RunFigures {
  Int3 cells;                                         ///< the whole mesh, per axis
  std::int64_t restarted_from = -1;                   ///< the checkpoint's step, or -1
  SolveOutcome solve;                                 ///< the iterations' time and repartitions
  CheckResult last;                                   ///< the final check
  const std::vector<CheckResult>* history = nullptr;  ///< every validated check, the last included
  double checksum = 0;                                ///< Solver::checksum
  nlohmann::json checkpoint;                          ///< checkpoint_report
  int local_blocks = 0;                               ///< this rank's blocks at the end
};

/// Says the run's summary (residual, error, time, cell updates/s, effective bandwidth) and
/// finishes the session with the report's fields. Every rank, main thread, once.
void report_run(Session& session, const Options& options, const RunFigures& figures);

}  // namespace tessera::jacobi7
