#pragma once
// Session: what every tessera app starts with. Initializes MPI (funneled), parses the
// common options and the app's own (CLI11), validates them on every rank, and owns the
// runtime, the communication layer, the execution model, run statistics and tracing.
//
//   tessera::Session session(argc, argv, "jacobi7", "3-D Poisson, 7-point Jacobi");
//   int iterations = 100;   // #include "tessera/option_registry.hpp"
//   session.option_registry().add("--iterations", iterations, "iterations")
//       ->check(CLI::PositiveNumber);
//   session.start();        // parse + validate; exits cleanly on every rank on bad input
//   ... submit tasks through session.runtime() / session.comm() / session.exec() ...
//   session.finish(app_json);  // waits, prints the summary, writes --report / --trace

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera/base/atomic_file.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/memory_check.hpp"
#include "tessera/runtime/runtime.hpp"

// CLI11 costs seconds of compile time per translation unit: only the files that add
// options include <CLI/CLI.hpp>.
namespace CLI {
class App;
}

namespace tessera {

class OptionRegistry;
class RunStats;
class TraceRecorder;

/// Options every app accepts.
struct CommonOptions {
  ExecModel exec = ExecModel::dataflow;
  int threads = 1;
  double hang_timeout_s = 60;
  std::string report;  ///< JSON report path ("" = none)
  std::string trace;   ///< Chrome trace path ("" = none)
  bool quiet = false;
  std::string priorities = "skeleton";    ///< skeleton | none
  std::string intranode = "rings";        ///< rings | mpi: see tessera::Intranode
  std::string replay_schedule = "fixed";  ///< fixed | balanced: see tessera::ReplaySchedule
  std::string stats = "full";             ///< full | counts: see tessera::StatsDetail
  std::uint64_t steal_seed = 0;
  bool memory_check = true;  ///< false with --no-memory-check
  std::string config;        ///< --config: TOML file of option values ("" = none)
  std::string write_config;  ///< --write-config: where finish() writes the options as run
};

/// Thrown by Session::fail and by option validation; caught by Session::start.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Session {
 public:
  /// Initializes MPI unless it is already: with MPI_THREAD_SINGLE when the command line
  /// runs one thread per rank, else MPI_THREAD_FUNNELED. `app` names the program. Started
  /// without a launcher (mpirun, srun), it first sets OMPI_MCA_ess_singleton_isolated=1 and
  /// OMPI_MCA_orte_jobfam_session_dir to a directory of its own in the environment (unless
  /// set): the singleton starts no OpenMPI daemon (MPI_Comm_spawn is unavailable).
  Session(int argc, char** argv, std::string app, std::string description);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// The option parser; add app options before start(). Include <CLI/CLI.hpp> to use it
  /// (this header only declares CLI::App, to keep CLI11 out of files that add no options).
  /// Options added here directly are parsed but not declared: prefer option_registry().
  CLI::App& cli() { return *cli_; }
  /// Where the app declares its options (tessera/option_registry.hpp), before start(): the
  /// common options (docs/options.md) are declared there already. Declared options are
  /// read from --config files, written by --write-config, listed in the report's
  /// "options" and, if they define the problem, stored in and restored from checkpoints.
  OptionRegistry& option_registry() { return *registry_; }
  /// Parses the command line, then the --config file, and validates the options on every
  /// rank, then builds runtime, comm and observers. On bad input (an unknown option or
  /// value, a config file's key unknown or disagreeing with the command line, a report,
  /// trace or config directory that does not exist) prints one line naming the option
  /// (rank 0) and exits with status 2 on every rank; on --help prints usage and exits 0.
  void start();
  /// Call inside app validation after start(): reports `option: message` and exits 2
  /// on every rank (all ranks see the same arguments, so all reach the same verdict).
  [[noreturn]] void fail(const std::string& option, const std::string& message);

  /// Call after start() and before the app's large allocations, on every rank: when the
  /// largest `need` over ranks exceeds the smallest share of node memory per rank, prints
  /// `app: error: <options>: needs X per rank, Y available per rank on this node` (rank 0)
  /// and exits 2 on every rank, in well under a second. --no-memory-check skips it.
  /// Collective over MPI_COMM_WORLD.
  void check_memory(const std::string& options, const MemoryEstimate& need);

  /// Names what the app does now ("setup", "solve", ...): run_guarded reports an escaped
  /// exception as happening during it. start() sets "setup", finish() "finish". Main
  /// thread only.
  void set_phase(std::string phase);

  const CommonOptions& options() const { return options_; }
  Runtime& runtime() { return *runtime_; }
  Comm& comm() { return *comm_; }
  Exec& exec() { return *exec_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& app() const { return app_; }
  /// Seconds since start(), by MPI_Wtime (simulated time under SimGrid SMPI).
  double elapsed() const;

  /// Prints a progress line on rank 0 unless --quiet.
  template <class... Args>
  void progress(fmt::format_string<Args...> f, Args&&... args) {
    if (rank_ == 0 && !options_.quiet) print_line(fmt::format(f, std::forward<Args>(args)...));
  }
  /// Prints a line on rank 0 (summaries; shown even with --quiet).
  template <class... Args>
  void say(fmt::format_string<Args...> f, Args&&... args) {
    if (rank_ == 0) print_line(fmt::format(f, std::forward<Args>(args)...));
  }

  /// Waits for all tasks, then collects statistics over ranks and writes the JSON report
  /// (--report) and trace (--trace) atomically (temporary name + rename). `app_fields`
  /// must hold at least "checksum"; the common fields (app, exec, ranks, threads,
  /// mpi_thread_level, wall_s, phases, tasks, comm, options, ...; docs/report.md) are
  /// added. With --write-config, writes the declared options as run to that file (rank 0,
  /// atomically). Returns the full report (on every rank).
  nlohmann::json finish(nlohmann::json app_fields);

 private:
  void print_line(const std::string& line);

  std::string app_;
  std::unique_ptr<CLI::App> cli_;
  std::unique_ptr<OptionRegistry> registry_;
  std::string exec_name_ = "dataflow";  ///< --exec as given; options_.exec after start()
  int argc_;
  char** argv_;
  CommonOptions options_;
  int rank_ = 0;
  int size_ = 1;
  bool owns_mpi_ = false;
  int uncaught_at_construction_ = 0;
  int thread_level_ = MPI_THREAD_SINGLE;  ///< the level MPI provides
  double start_time_ = 0;                 ///< MPI_Wtime() at the end of start()
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<Comm> comm_;
  std::unique_ptr<Exec> exec_;
  std::unique_ptr<RunStats> stats_;
  std::unique_ptr<TraceRecorder> trace_;
};

/// Runs an app's body. An exception escaping it (a failed validation, a task error, an
/// allocation failure) is printed as `app: rank R: error: <what> during <phase>` with the
/// real rank (a Session unwound by the exception leaves MPI initialized for this) and the
/// run is aborted on every rank with MPI_Abort, so the other ranks never hang waiting for
/// this one. Returns the body's exit code.
int run_guarded(const std::function<int()>& body);

/// The 16-hex-digit bit pattern of a double, as reports print checksums.
std::string hex_bits(double value);

}  // namespace tessera
