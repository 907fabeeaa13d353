#pragma once
// The end-of-run report on stdout, in the spirit of miniAMR's (report_perf bit 4).

#include <map>
#include <string>

#include "driver.hpp"
#include "options.hpp"
#include "tessera/session.hpp"

namespace miniamr {

/// Prints the report on rank 0. `phases`: main-thread seconds per phase (this rank).
void print_report(tessera::Session& session, const Options& options, const RunTotals& totals,
                  const std::map<std::string, double>& phases);

}  // namespace miniamr
