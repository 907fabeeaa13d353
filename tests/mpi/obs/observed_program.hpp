#pragma once
// A small task program with every kind of access and communication, run with RunStats
// and TraceRecorder attached the way Session attaches them; shared by the obs MPI tests.

#include <mpi.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera/obs/run_stats.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera::obs_test {

/// Per round: "pack" (read value, write out), a send to the right neighbour and a
/// receive from the left one (order alternating by round), `readers` "observe" tasks
/// (read value, reduce total; tags {round, reader}), "update" (readwrite value, read
/// in). Every 4th round: "contribute" (read total, write sum), an exact allreduce of sum
/// and "use_sum" (read sum, readwrite value).
struct ProgramShape {
  int rounds = 12;
  int width = 32;
  int readers = 3;
};

struct ProgramRun {
  nlohmann::json stats;           ///< RunStats::collect
  std::uint64_t tasks_submitted;  ///< on this rank
  double final_value;             ///< value[0] after the last round (same for every model)
};

/// Collective over MPI_COMM_WORLD. Writes a trace to `trace_path` unless it is empty.
/// RunStats, with `detail`, observes the runtime (unless traced) and the lane.
ProgramRun run_observed_program(RuntimeOptions options, const ProgramShape& shape,
                                const std::string& trace_path,
                                StatsDetail detail = StatsDetail::full);

/// A file name every rank agrees on (rank 0 picks it; broadcast): inside
/// $TESSERA_OBS_TRACE_DIR when set (kept for tests/apps/trace_ring.sh), else in /tmp.
std::string shared_trace_path(const std::string& stem);

/// Removes `path` on rank 0 unless it lies in $TESSERA_OBS_TRACE_DIR.
void remove_trace(const std::string& path);

}  // namespace tessera::obs_test
