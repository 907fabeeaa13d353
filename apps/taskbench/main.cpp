// taskbench: Task Bench (StanfordLegion/task-bench) patterns and kernels on tessera.
//
// Accepts Task Bench's flags (-steps, -width, -type, -radix, -period, -fraction, -kernel,
// -iter, -output, -scratch, -sample, -imbalance, -nodes, -v) and tessera's (--exec,
// --threads, ...), and prints Task Bench's configuration and summary lines so Task
// Bench's scripts read the output unchanged. Like Task Bench's MPI implementation it runs
// the graph twice and times the second run between two barriers. Every task checks every
// input; a mismatch is printed at once, naming the task, and once the graph has drained
// the run aborts on every rank with a non-zero exit.

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "flags.hpp"
#include "graph_execution.hpp"
#include "summary.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/session.hpp"

namespace tessera::taskbench {
namespace {

std::string names_of(auto const& table) {
  std::string s;
  for (const auto& [value, name] : table) s += fmt::format("{}{}", s.empty() ? "" : ", ", name);
  return s;
}

struct Options {
  RunConfig config;
  std::string type = "trivial";
  std::string kernel = "empty";
  long period = -1;  // -1: Task Bench's default for the type
  bool verbose = false;
  bool several_graphs = false;
  std::vector<long> corrupt;  // hidden: {timestep, point} written wrong on purpose
};

/// Declares taskbench's options, Task Bench's own flags (-steps is --steps; main()
/// translates). --and and --corrupt are hidden and not declared (not repeated by
/// --write-config).
void declare_options(OptionRegistry& registry, CLI::App& cli, Options& o) {
  RunConfig& c = o.config;
  registry.add("--steps", c.graph.timesteps, "(-steps) timesteps");
  registry.add("--width", c.graph.max_width, "(-width) points per timestep");
  registry.add("--type", o.type, "(-type) dependence type: " + names_of(kDependenceNames));
  registry.add("--radix", c.graph.radix,
               "(-radix) dependencies per task for nearest, spread, "
               "random_nearest");
  registry.add("--period", o.period, "(-period) dependence sets of spread and random_nearest");
  registry.add("--fraction", c.graph.fraction, "(-fraction) share of edges kept by random_nearest");
  registry.add("--kernel", o.kernel, "(-kernel) task kernel: " + names_of(kKernelNames));
  registry.add("--iter", c.kernel.iterations, "(-iter) kernel iterations");
  registry.add("--output", c.output_bytes, "(-output) bytes each task outputs");
  registry.add("--scratch", c.scratch_bytes, "(-scratch) scratch bytes per point");
  registry.add("--sample", c.kernel.samples, "(-sample) memory_bound pieces");
  registry.add("--imbalance", c.kernel.imbalance,
               "(-imbalance) load_imbalance spread of iterations, 0..2");
  registry.add("--nodes", c.nodes, "(-nodes) estimate local/nonlocal dependencies for N nodes");
  registry.add_flag("-v,--verbose", o.verbose, "print every timestep's points and dependencies");
  registry.add_flag("!--no-replay", c.replay,
                    "submit every timestep's tasks, rather than replaying the repeating timesteps "
                    "as a recorded iteration graph (dataflow)");
  cli.add_flag("--and", o.several_graphs, "(-and) several task graphs: not supported")->group("");
  cli.add_option("--corrupt", o.corrupt,
                 "testing: task T P writes a wrong payload, to prove verification fails")
      ->expected(2)
      ->group("");
}

/// Turns the parsed options into a RunConfig, failing (on every rank) on a bad value.
RunConfig validate(Session& session, Options& o) {
  RunConfig c = o.config;
  if (o.several_graphs) session.fail("-and", "several task graphs in one run are not supported");
  const auto type = parse_dependence_type(o.type);
  if (!type) {
    session.fail("-type", fmt::format("unknown type '{}' (allowed: {})", o.type,
                                      names_of(kDependenceNames)));
  }
  c.graph.type = *type;
  const auto kernel = parse_kernel_type(o.kernel);
  if (!kernel) {
    for (std::string_view unsupported : kUnsupportedKernels) {
      if (o.kernel == unsupported) {
        session.fail("-kernel", fmt::format("kernel '{}' is not provided by tessera's taskbench "
                                            "(allowed: {})",
                                            o.kernel, names_of(kKernelNames)));
      }
    }
    session.fail("-kernel", fmt::format("unknown kernel '{}' (allowed: {})", o.kernel,
                                        names_of(kKernelNames)));
  }
  c.kernel.type = *kernel;
  if (o.period < -1) session.fail("-period", fmt::format("must be >= 0 (got {})", o.period));
  c.graph.period = o.period >= 0 ? o.period : (needs_period(c.graph.type) ? 3 : 0);
  // Before check_config: checking the graph visits every point.
  if (c.graph.timesteps > 0 && c.graph.max_width > 0 && c.graph.radix >= 0 && c.graph.period >= 0 &&
      c.output_bytes >= 0 && c.scratch_bytes >= 0 &&
      (c.graph.period > 0 || !needs_period(c.graph.type))) {
    session.check_memory("-width/-output/-scratch",
                         GraphExecution::memory_needed(c, session.size()));
  }
  // Each rank checks the dependency lists of its own points; all ranks then report the
  // lowest failing rank's finding, which each recomputes from that rank's points.
  const BlockDistribution points{c.graph.max_width, session.size()};
  const auto problem_in = [&](int rank) {
    return check_config(c, points.first(rank), points.end(rank));
  };
  int failing = problem_in(session.rank()) ? session.rank() : session.size();
  MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (failing < session.size()) {
    const auto problem = problem_in(failing);
    session.fail(problem->option, problem->message);
  }
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  if (found && 2 * c.graph.max_width > static_cast<long>(*tag_ub)) {
    session.fail("-width", fmt::format("needs {} MPI tags, more than MPI_TAG_UB = {}",
                                       2 * c.graph.max_width, *tag_ub));
  }
  if (!o.corrupt.empty() && (o.corrupt[0] < 0 || o.corrupt[0] >= c.graph.timesteps ||
                             !c.graph.exists(o.corrupt[0], o.corrupt[1]))) {
    session.fail("--corrupt", fmt::format("task (timestep {}, point {}) does not exist",
                                          o.corrupt[0], o.corrupt[1]));
  }
  return c;
}

int run(Session& session, Options& options) {
  session.start();
  const RunConfig config = validate(session, options);
  CorruptTask corrupt;
  if (!options.corrupt.empty()) corrupt = std::pair(options.corrupt[0], options.corrupt[1]);

  GraphExecution execution(session, config, corrupt);
  session.set_phase("graph execution");
  if (session.rank() == 0) {
    std::string text = configuration_text(config);
    if (options.verbose) text += dependency_listing(DependencyTable(config.graph));
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }

  // A warm-up run, then the timed one, as Task Bench's MPI implementation does.
  double elapsed = 0;
  for (int run = 0; run < 2; ++run) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    execution.submit_graph();
    session.exec().barrier();
    MPI_Barrier(MPI_COMM_WORLD);
    elapsed = MPI_Wtime() - start;
    long long failures = execution.failures();
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (failures > 0) {
      const std::string mine = execution.first_failure();
      throw std::runtime_error(
          mine.empty() ? fmt::format("verification failed on another rank ({} in all)", failures)
                       : fmt::format("{} ({} failure(s) on all ranks)", mine, failures));
    }
  }

  // Every task checked every input: the inputs checked add up to twice the dependencies.
  // Each rank counts its own points; the counts are integers, so their sum is exact.
  const BlockDistribution points{config.graph.max_width, session.size()};
  Totals totals = count_totals(config, points.first(session.rank()), points.end(session.rank()));
  long long counts[6] = {
      totals.tasks, totals.dependencies, totals.local_dependencies, totals.nonlocal_dependencies,
      totals.flops, totals.bytes};
  MPI_Allreduce(MPI_IN_PLACE, counts, 6, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  totals = {counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]};
  long long verified = execution.inputs_verified();
  MPI_Allreduce(MPI_IN_PLACE, &verified, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (verified != 2 * totals.dependencies) {
    throw std::runtime_error(
        fmt::format("verification failed: tasks checked {} inputs in two "
                    "runs, expected {}",
                    verified, 2 * totals.dependencies));
  }
  if (session.rank() == 0) {
    std::fputs(summary_text(config, totals, elapsed).c_str(), stdout);
    std::fflush(stdout);
  }
  session.finish(
      {{"checksum", fmt::format("{}", verified)},
       {"solve_s", elapsed},
       {"taskbench",
        {{"type", std::string(to_string(config.graph.type))},
         {"kernel", std::string(to_string(config.kernel.type))},
         {"steps", config.graph.timesteps},
         {"width", config.graph.max_width},
         {"iterations", config.kernel.iterations},
         {"tasks", totals.tasks},
         {"dependencies", totals.dependencies},
         {"flops", totals.flops},
         {"replayed_timesteps", execution.steady_range().count * execution.steady_range().period},
         {"bytes", totals.bytes}}}});
  return 0;
}

}  // namespace
}  // namespace tessera::taskbench

int main(int argc, char** argv) {
  std::vector<std::string> args = tessera::taskbench::translate_task_bench_flags(argc, argv);
  std::vector<char*> translated;
  for (std::string& a : args) translated.push_back(a.data());
  translated.push_back(nullptr);
  tessera::Session session(argc, translated.data(), "taskbench",
                           "Task Bench patterns and kernels as tessera task graphs");
  tessera::taskbench::Options options;
  tessera::taskbench::declare_options(session.option_registry(), session.cli(), options);
  return tessera::run_guarded([&] { return tessera::taskbench::run(session, options); });
}
