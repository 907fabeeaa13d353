#include "tessera/session.hpp"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>
#include <thread>

#include "session/core_binding.hpp"
#include "tessera/base/check_mpi.hpp"
#include "tessera/comm/compute_model.hpp"
#include "tessera/obs/run_stats.hpp"
#include "tessera/obs/trace_recorder.hpp"
#include "tessera/option_registry.hpp"

namespace tessera {

namespace {

/// Whether the command line runs one thread per rank (`--threads` absent or 1, or
/// `--exec bsp`, on the command line or in the --config file). Read before MPI is
/// initialized, since the thread level is chosen then; CLI11 parses and validates the same
/// options later. Unreadable values count as threaded.
bool one_thread_per_rank(int argc, char** argv) {
  std::string threads, exec, config;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    for (auto [name, value] : {std::pair{std::string_view("--threads"), &threads},
                               std::pair{std::string_view("--exec"), &exec},
                               std::pair{std::string_view("--config"), &config}}) {
      if (arg == name && i + 1 < argc) {
        *value = argv[++i];
      } else if (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=') {
        *value = arg.substr(name.size() + 1);
      }
    }
  }
  if (!config.empty()) {
    try {
      for (const CLI::ConfigItem& item : CLI::ConfigTOML().from_file(config)) {
        if (item.parents.empty() && item.inputs.size() == 1) {
          if (item.name == "threads" && threads.empty()) threads = item.inputs[0];
          if (item.name == "exec" && exec.empty()) exec = item.inputs[0];
        }
      }
    } catch (const CLI::Error&) {
      // start() reports the unreadable file.
    }
  }
  return exec == "bsp" || threads.empty() || threads == "1";
}

// What run_guarded says about an escaped exception: the app, rank and phase of the last
// Session (main thread only, like the Session itself).
struct ErrorContext {
  std::string app;
  int rank = -1;
  std::string phase;
};
ErrorContext& error_context() {
  static ErrorContext context;
  return context;
}

// Rank for error messages: MPI's when it is up, else the last Session's (-1 only if no
// Session ever ran). The error paths below leave MPI return codes unchecked: they are
// already reporting a failure.
int world_rank() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int rank = error_context().rank;
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

[[noreturn]] void finalize_and_exit(int code) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

#ifndef TESSERA_SMPI
// No launcher (mpirun, or srun with PMI/PMIx) left its variables: OpenMPI runs the process as
// a singleton.
bool started_without_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_FD"}) {
    if (std::getenv(name) != nullptr) return false;
  }
  return true;
}

// Started without mpirun, OpenMPI 4.1 forks a daemon (orted) and talks to it through its
// PMIx client component. Its MPI_Finalize unloads that component before it stops the
// progress thread, so a PMIx event the component queued on that thread and the thread had
// not run yet (likely on a loaded machine) runs unmapped code: SIGSEGV after the report.
// The daemon only serves MPI_Comm_spawn, which tessera never calls: an isolated singleton
// has neither daemon nor PMIx client. Isolated singletons all get job family 0, so they
// would share one session directory (and remove it under each other's feet): each gets its
// own. Settings the user made stay. Called before MPI_Init, while the process has one
// thread.
void isolate_singleton() {
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir =
      fmt::format("{}/ompi.tessera-singleton.{}.{}", tmp != nullptr && *tmp != 0 ? tmp : "/tmp",
                  getuid(), getpid());
  setenv("OMPI_MCA_orte_jobfam_session_dir", dir.c_str(), 0);
}
#endif

}  // namespace

Session::Session(int argc, char** argv, std::string app, std::string description)
    : app_(std::move(app)),
      cli_(std::make_unique<CLI::App>(std::move(description), app_)),
      registry_(std::make_unique<OptionRegistry>(*cli_)),
      argc_(argc),
      argv_(argv) {
  int initialized = 0;
  TESSERA_MPI_CHECK(MPI_Initialized(&initialized));
  if (!initialized) {
#ifndef TESSERA_SMPI
    if (started_without_launcher()) isolate_singleton();
#endif
    // A process with a single thread asks for MPI_THREAD_SINGLE: OpenMPI then skips the
    // locks it takes on every message at any higher level.
    const int wanted = one_thread_per_rank(argc, argv) ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED;
    TESSERA_MPI_CHECK(MPI_Init_thread(&argc_, &argv_, wanted, &thread_level_));
    owns_mpi_ = true;
    if (thread_level_ < wanted) {
      std::fprintf(stderr, "%s: error: the MPI library does not support MPI_THREAD_FUNNELED\n",
                   app_.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  } else {
    TESSERA_MPI_CHECK(MPI_Query_thread(&thread_level_));
  }
  TESSERA_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  TESSERA_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  uncaught_at_construction_ = std::uncaught_exceptions();
  error_context() = {app_, rank_, "start-up"};

  // The common options (docs/options.md), declared once for every app.
  OptionRegistry& o = *registry_;
  o.add("--exec", exec_name_, "execution model: bsp | forkjoin | dataflow")
      ->check(CLI::IsMember({"bsp", "forkjoin", "dataflow"}));
  o.add("--threads", options_.threads, "threads per rank including the main thread")
      ->check(CLI::Range(1, 1024));
  o.add("--hang-timeout", options_.hang_timeout_s,
        "seconds without progress before reporting a hang and aborting; 0 disables")
      ->check(CLI::Range(0.0, 1e9));
  o.add("--report", options_.report, "write the JSON run report (docs/report.md) to this file");
  o.add("--trace", options_.trace, "write a Chrome/Perfetto trace to this file");
  o.add_flag("--quiet", options_.quiet, "no progress lines");
  o.add("--priorities", options_.priorities,
        "skeleton (boundary tasks first, dataflow only) | none")
      ->check(CLI::IsMember({"skeleton", "none"}));
#ifdef TESSERA_SMPI
  // SimGrid's SMPI runs every simulated rank inside one process: shared-memory rings would
  // bypass the simulated network, and the watchdog's real-time clock means nothing there.
  options_.intranode = "mpi";
  options_.hang_timeout_s = 0;
  const std::vector<std::string> intranode_choices{"mpi"};
#else
  const std::vector<std::string> intranode_choices{"rings", "mpi"};
#endif
  o.add("--intranode", options_.intranode,
        "messages of up to 1008 bytes to ranks on this node: rings (tessera's shared-memory "
        "rings) | mpi (the only choice under SimGrid SMPI)")
      ->check(CLI::IsMember(intranode_choices));
  o.add("--replay-schedule", options_.replay_schedule,
        "replayed iteration graphs (taskbench): fixed (each task on one thread, no queues) | "
        "balanced (work-stealing queues, for uneven tasks)")
      ->check(CLI::IsMember({"fixed", "balanced"}));
  o.add("--stats", options_.stats,
        "run statistics: full (task and thread times, communication overlap; one clock read "
        "per task) | counts (task counts only, no clock reads; --trace implies full)")
      ->check(CLI::IsMember({"full", "counts"}));
  o.add("--steal-seed", options_.steal_seed,
        "seed for randomized work-stealing victims (0 = round robin)");
  o.add_flag("!--no-memory-check", options_.memory_check,
             "skip the check that the input fits in this node's memory before allocating");
  // Not declared: a config file naming another config file, or where to write itself,
  // would not repeat a run.
  cli_->add_option("--config", options_.config,
                   "read option values from this TOML file (name = value per line, names "
                   "without dashes; as --write-config writes); the command line may repeat "
                   "a value but not contradict it");
  cli_->add_option("--write-config", options_.write_config,
                   "at the end of the run, write every option as run to this TOML file, for "
                   "--config to repeat the run");
}

Session::~Session() {
  // Tasks still running report to the observers: drain before tearing anything down.
  if (runtime_) {
    try {
      runtime_->wait_all();
    } catch (...) {
      // The error was reported by the wait that saw it; a destructor must not throw.
    }
  }
  comm_.reset();
  runtime_.reset();
  trace_.reset();
  stats_.reset();
  // Unwound by an exception: MPI stays up so that run_guarded can name this rank and abort
  // the other ranks, which may be waiting for this one in a collective.
  const bool unwinding = std::uncaught_exceptions() > uncaught_at_construction_;
  if (owns_mpi_ && !unwinding) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

void Session::start() {
  try {
    cli_->parse(argc_, argv_);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      if (rank_ == 0) std::cout << cli_->help();
      finalize_and_exit(0);
    }
    if (rank_ == 0) std::fprintf(stderr, "%s: error: %s\n", app_.c_str(), e.what());
    finalize_and_exit(2);
  }
  if (!options_.config.empty()) {
    try {
      registry_->apply_config(options_.config);
    } catch (const OptionError& e) {
      fail(e.option(), e.what());
    }
  }
  options_.exec = *parse_exec_model(exec_name_);
  if (!options_.write_config.empty()) {
    // An option the registry does not hold would be missing from the file: refuse rather
    // than write a config that does not repeat the run.
    for (const CLI::Option* option : cli_->get_options()) {
      if (option->count() == 0 || option->get_lnames().empty()) continue;
      const std::string name = "--" + option->get_lnames().front();
      if (name != "--config" && name != "--write-config" && !registry_->writable(name)) {
        fail("--write-config", fmt::format("cannot write {} to a config file; leave out "
                                           "--write-config to use {}",
                                           name, name));
      }
    }
  }
  if (options_.exec == ExecModel::bsp && options_.threads != 1) {
    fail("--threads", fmt::format("bsp runs one thread per rank; got {} (use --threads 1, or "
                                  "--exec forkjoin|dataflow for threads)",
                                  options_.threads));
  }
  for (const auto& [option, path] :
       {std::pair{"--report", &options_.report}, std::pair{"--trace", &options_.trace},
        std::pair{"--write-config", &options_.write_config}}) {
    if (path->empty()) continue;
    const auto dir = std::filesystem::path(*path).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir)) {
      fail(option, fmt::format("directory '{}' does not exist", dir.string()));
    }
    if (::access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) {
      fail(option, fmt::format("directory '{}' is not writable", dir.empty() ? "." : dir.string()));
    }
  }

  RuntimeOptions ro = runtime_options_for(options_.exec, options_.threads);
  if (ro.threads > 1 && thread_level_ < MPI_THREAD_FUNNELED) {
    fail("--threads", fmt::format("MPI was initialized single-threaded; {} threads need "
                                  "MPI_THREAD_FUNNELED (use --threads 1)",
                                  ro.threads));
  }
  ro.hang_timeout_s = options_.hang_timeout_s;
  ro.steal_seed = options_.steal_seed;
  ro.replay_schedule =
      options_.replay_schedule == "balanced" ? ReplaySchedule::balanced : ReplaySchedule::fixed;
  // An environment variable, not an option: it describes the machine the job shares (as
  // OMP_WAIT_POLICY does), not the run, and a test harness sets it for every program.
  // Checked here, on every rank, so a bad value stops the run with one line.
  try {
    ro.wait_policy = wait_policy_from_environment();
  } catch (const std::invalid_argument& e) {
    fail("environment", e.what());
  }
  // Only the job can count the ranks beside this one and see their binding; the runtime
  // picks its idle spin from what they leave it.
  const detail::CoreBinding binding = detail::node_core_binding(ro.threads, MPI_COMM_WORLD);
  ro.threads_on_machine = binding.threads_on_node;
  if (binding.sharing_by_binding()) {
    // Threads share cores by binding alone: spin as if oversubscribed.
    ro.threads_on_machine = std::max(ro.threads_on_machine, binding.cores_online + 1);
  }
  int shared = binding.sharing_by_binding() ? 1 : 0;
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (shared && rank_ == 0) {
    const std::string warning = detail::core_binding_warning(binding, ro.threads, app_);
    std::fprintf(stderr, "%s\n",
                 warning.empty() ? fmt::format("{}: warning: on some node, threads share a core "
                                               "because of CPU binding; run mpirun with "
                                               "--bind-to none (or --map-by slot:PE={})",
                                               app_, ro.threads)
                                       .c_str()
                                 : warning.c_str());
  }
  const int rank = rank_;
  const std::string app = app_;
  ro.on_hang = [rank, app](const std::string& text) {
    std::fprintf(stderr, "%s: rank %d: hang detected\n%s", app.c_str(), rank, text.c_str());
    std::fflush(stderr);
    // Give the other ranks time to print their own view before the job is torn down.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    MPI_Abort(MPI_COMM_WORLD, 3);
  };
  ro.compute_hook = &compute_model_from_environment;
  runtime_ = std::make_unique<Runtime>(std::move(ro));
  comm_ = std::make_unique<Comm>(*runtime_, MPI_COMM_WORLD,
                                 options_.intranode == "mpi" ? Intranode::mpi : Intranode::rings);
  exec_ = std::make_unique<Exec>(options_.exec, *runtime_);
  exec_->set_skeleton_priorities(options_.priorities == "skeleton");
  // A trace stamps every task anyway, and feeds the statistics its stamps.
  const StatsDetail detail = options_.stats == "counts" && options_.trace.empty()
                                 ? StatsDetail::counts
                                 : StatsDetail::full;
  stats_ = std::make_unique<RunStats>(runtime_->threads(), detail);
  // Messages and bytes come from the lane's own totals: counting statistics need nothing
  // from it.
  if (detail == StatsDetail::full) comm_->add_observer(stats_.get());
  if (!options_.trace.empty()) {
    // The recorder feeds the statistics its own time stamps (one pair per task for both).
    trace_ = std::make_unique<TraceRecorder>(runtime_->threads(), MPI_COMM_WORLD, stats_.get());
    comm_->add_observer(trace_.get());
    runtime_->set_observer(trace_.get());
  } else {
    runtime_->set_observer(stats_.get());
  }
  TESSERA_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  start_time_ = MPI_Wtime();
  stats_->start();
  set_phase("setup");
}

void Session::check_memory(const std::string& options, const MemoryEstimate& need) {
  if (!options_.memory_check) return;
  const NodeMemory node = node_memory(MPI_COMM_WORLD);
  // Every rank reaches the same verdict: the largest need against the smallest offer.
  double extremes[2] = {need.total(), -node.per_rank()};
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, extremes, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  if (const auto shortfall = memory_shortfall(extremes[0], -extremes[1])) {
    fail(options, fmt::format("{} ({}; {} ranks on this node; --no-memory-check skips this "
                              "check)",
                              *shortfall, need.breakdown(), node.ranks_on_node));
  }
}

void Session::set_phase(std::string phase) {
  error_context().phase = std::move(phase);
}

void Session::fail(const std::string& option, const std::string& message) {
  if (rank_ == 0) {
    std::fprintf(stderr, "%s: error: %s: %s\n", app_.c_str(), option.c_str(), message.c_str());
  }
  finalize_and_exit(2);
}

double Session::elapsed() const {
  // MPI's clock: simulated time under SimGrid SMPI, the monotonic clock otherwise.
  return MPI_Wtime() - start_time_;
}

void Session::print_line(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

nlohmann::json Session::finish(nlohmann::json app_fields) {
  set_phase("finish");
  runtime_->wait_all();
  double wall = elapsed();
  stats_->stop();
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));

  // Phase times: main-thread wall time per phase, the maximum over ranks.
  nlohmann::json phases = exec_->phase_seconds();
  const std::string mine = phases.dump();
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(size_);
  TESSERA_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
  std::vector<int> offsets(size_, 0);
  std::string all;
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    all.resize(offsets[size_ - 1] + lengths[size_ - 1]);
  }
  TESSERA_MPI_CHECK(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                                offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD));
  nlohmann::json merged = nlohmann::json::object();
  if (rank_ == 0) {
    for (int r = 0; r < size_; ++r) {
      const nlohmann::json rank_phases = nlohmann::json::parse(all.substr(offsets[r], lengths[r]));
      for (const auto& [name, seconds] : rank_phases.items()) {
        merged[name] = std::max(merged.value(name, 0.0), seconds.get<double>());
      }
    }
  }

  nlohmann::json stats = stats_->collect(MPI_COMM_WORLD);
  const CommStats cs = comm_->stats();
  double sums[4] = {static_cast<double>(cs.messages_sent), static_cast<double>(cs.bytes_sent),
                    cs.wait_s, static_cast<double>(cs.ring_messages_sent)};
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));

  nlohmann::json report = std::move(app_fields);
  report["app"] = app_;
  report["exec"] = std::string(to_string(options_.exec));
  report["ranks"] = size_;
  report["threads"] = runtime_->threads();
  report["compute"] = runtime_->compute_timing();  // "measured" unless a simulation's model
  // A simulation that skipped its bodies: the app's values (checksum, errors) are meaningless.
  if (compute_bodies_skipped()) report["bodies_skipped"] = true;
  report["replay_schedule"] = options_.replay_schedule;
  report["mpi_thread_level"] = thread_level_ == MPI_THREAD_SINGLE       ? "single"
                               : thread_level_ == MPI_THREAD_FUNNELED   ? "funneled"
                               : thread_level_ == MPI_THREAD_SERIALIZED ? "serialized"
                                                                        : "multiple";
  report["wall_s"] = wall;
  report["phases"] = merged;
  nlohmann::json counts = nlohmann::json::object();
  std::uint64_t total_tasks = 0;
  if (stats.contains("tasks")) {
    for (auto& [name, s] : stats["tasks"].items()) {
      counts[name] = s["count"];
      total_tasks += s["count"].get<std::uint64_t>();
    }
  }
  report["tasks"] = counts;
  report["task_stats"] = stats.value("tasks", nlohmann::json::object());
  report["thread_times"] = stats.value("threads", nlohmann::json::array());
  report["stats"] = std::string(to_string(stats_->detail()));
  report["overlap_fraction"] =
      stats.contains("overlap_fraction") ? stats["overlap_fraction"] : nlohmann::json();
  report["comm"] = {{"messages", static_cast<std::uint64_t>(sums[0])},
                    {"bytes", static_cast<std::uint64_t>(sums[1])},
                    {"wait_s", sums[2]},
                    {"intranode", options_.intranode},
                    {"ring_messages", static_cast<std::uint64_t>(sums[3])}};
  report["options"] = registry_->values();
  if (rank_ == 0 && !options_.report.empty()) {
    write_file_atomically(options_.report, report.dump(2) + "\n");
  }
  if (rank_ == 0 && !options_.write_config.empty()) {
    write_file_atomically(
        options_.write_config,
        fmt::format("# {} options as run; repeat with --config FILE\n{}", app_,
                    registry_->config_text({"--restart", "--report", "--trace"})));
  }
  if (trace_) {
    // The runtime's idle threads format the trace; the recorder must not record them.
    runtime_->set_observer(nullptr);
    trace_->write(options_.trace, MPI_COMM_WORLD, runtime_.get());
  }
  say("{}: {} on {} rank(s) x {} thread(s): {:.3f} s, {} tasks, {} messages ({:.1f} MB), {}{}",
      app_, to_string(options_.exec), size_, runtime_->threads(), wall, total_tasks,
      static_cast<std::uint64_t>(sums[0]), sums[1] / 1e6,
      report["overlap_fraction"].is_null()
          ? std::string("overlap not measured (--stats counts)")
          : fmt::format("overlap {:.0f}%", 100.0 * report["overlap_fraction"].get<double>()),
      report.contains("checksum")
          ? fmt::format(", checksum {}", report["checksum"].get<std::string>())
          : std::string());
  if (rank_ == 0 && !options_.report.empty()) say("report written to {}", options_.report);
  if (rank_ == 0 && !options_.write_config.empty()) {
    say("options written to {}", options_.write_config);
  }
  if (trace_ && rank_ == 0) say("trace written to {}", options_.trace);
  return report;
}

int run_guarded(const std::function<int()>& body) {
  std::string what;
  try {
    return body();
  } catch (const OutOfMemory& e) {
    what = e.what();
  } catch (const std::bad_alloc&) {
    what = "out of memory";
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown exception";
  }
  const ErrorContext& context = error_context();
  const std::string prefix = context.app.empty() ? std::string() : context.app + ": ";
  const std::string phase = context.phase.empty() ? std::string() : " during " + context.phase;
  std::fprintf(stderr, "%srank %d: error: %s%s\n", prefix.c_str(), world_rank(), what.c_str(),
               phase.c_str());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

std::string hex_bits(double value) {
  return fmt::format("{:016x}", std::bit_cast<std::uint64_t>(value));
}

}  // namespace tessera
