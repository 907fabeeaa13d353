// taskbench: Task Bench (StanfordLegion/task-bench) patterns and kernels on tessera.
//
// Accepts Task Bench's flags (-steps, -width, -type, -radix, -period, -fraction, -kernel,
// -iter, -output, -scratch, -sample, -imbalance, -nodes, -v, and -and between several
// graphs) and tessera's (--exec, --threads, ...), and prints Task Bench's configuration and
// summary lines so Task Bench's scripts read the output unchanged. Like Task Bench's MPI
// implementation it runs the graphs twice and times the second run between two barriers.
// Every task checks every input; a mismatch is printed at once, naming the task, and once
// the graphs have drained the run aborts on every rank with a non-zero exit.

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "flags.hpp"
#include "graph_set_execution.hpp"
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

/// The flags of one task graph.
struct GraphOptions {
  RunConfig config;
  std::string type = "trivial";
  std::string kernel = "empty";
  long period = -1;  // -1: Task Bench's default for the type
};

struct Options {
  GraphOptions first_graph;
  std::vector<std::vector<std::string>> later_graphs;  // split off at -and (flags.hpp)
  long nodes = 0;
  bool replay = true;
  bool verbose = false;
  std::vector<long> corrupt;  // hidden: {timestep, point} written wrong on purpose
  long corrupt_graph = 1;     // hidden: the graph --corrupt applies to
};

/// The flags of one task graph through add(name, value, help): the first graph's are
/// declared in the app's OptionRegistry (--help, --config, --write-config), the later
/// graphs' (after -and) on a parser of their own.
void add_graph_options(const auto& add, GraphOptions& o) {
  RunConfig& c = o.config;
  add("--steps", c.graph.timesteps, "(-steps) timesteps (default 4)");
  add("--width", c.graph.max_width, "(-width) points per timestep (default 4)");
  add("--type", o.type, "(-type) dependence type: " + names_of(kDependenceNames));
  add("--radix", c.graph.radix,
      "(-radix) dependencies per task for nearest, spread, "
      "random_nearest (default 3)");
  add("--period", o.period,
      "(-period) dependence sets of spread and random_nearest "
      "(default 3)");
  add("--fraction", c.graph.fraction,
      "(-fraction) share of edges kept by random_nearest (default 0.25)");
  add("--kernel", o.kernel, "(-kernel) task kernel: " + names_of(kKernelNames));
  add("--iter", c.kernel.iterations, "(-iter) kernel iterations (default 0)");
  add("--output", c.output_bytes, "(-output) bytes each task outputs (default 16)");
  add("--scratch", c.scratch_bytes, "(-scratch) scratch bytes per point (default 0)");
  add("--sample", c.kernel.samples, "(-sample) memory_bound pieces (default 16)");
  add("--imbalance", c.kernel.imbalance,
      "(-imbalance) load_imbalance spread of iterations, 0..2 (default 0)");
}

void add_options(Session& session, Options& o) {
  OptionRegistry& registry = session.option_registry();
  CLI::App& cli = session.cli();
  add_graph_options([&](const std::string& name, auto& value,
                        const std::string& help) { registry.add(name, value, help); },
                    o.first_graph);
  registry.add("--nodes", o.nodes, "(-nodes) estimate local/nonlocal dependencies for N nodes");
  registry.add_flag("-v,--verbose", o.verbose, "print every timestep's points and dependencies");
  registry.add_flag("!--no-replay", o.replay,
                    "submit every timestep's tasks, rather than replaying the repeating timesteps "
                    "as a recorded iteration graph (dataflow)");
  cli.add_option("--corrupt", o.corrupt,
                 "testing: task T P writes a wrong payload, to prove verification fails")
      ->expected(2)
      ->group("");
  cli.add_option("--corrupt-graph", o.corrupt_graph, "testing: the graph --corrupt applies to")
      ->group("");
}

/// Turns one graph's parsed flags into a RunConfig, failing (on every rank) on a bad value.
/// `label` is "" for a run of one graph, else "graph N: " (it starts every message).
RunConfig validate_graph(Session& session, const Options& options, const GraphOptions& o,
                         long index, const std::string& label) {
  const auto fail = [&](const std::string& option, const std::string& message) {
    session.fail(option, label + message);
  };
  RunConfig c = o.config;
  c.graph.graph_index = index;
  c.nodes = options.nodes;
  c.replay = options.replay;
  const auto type = parse_dependence_type(o.type);
  if (!type) {
    fail("-type",
         fmt::format("unknown type '{}' (allowed: {})", o.type, names_of(kDependenceNames)));
  }
  c.graph.type = *type;
  const auto kernel = parse_kernel_type(o.kernel);
  if (!kernel) {
    for (std::string_view unsupported : kUnsupportedKernels) {
      if (o.kernel == unsupported) {
        fail("-kernel", fmt::format("kernel '{}' is not provided by tessera's taskbench "
                                    "(allowed: {})",
                                    o.kernel, names_of(kKernelNames)));
      }
    }
    fail("-kernel",
         fmt::format("unknown kernel '{}' (allowed: {})", o.kernel, names_of(kKernelNames)));
  }
  c.kernel.type = *kernel;
  if (o.period < -1) fail("-period", fmt::format("must be >= 0 (got {})", o.period));
  c.graph.period = o.period >= 0 ? o.period : (needs_period(c.graph.type) ? 3 : 0);
  return c;
}

/// Parses the flags of the graphs after the first (split off at -and) and validates every
/// graph, failing (on every rank) on a bad value.
std::vector<RunConfig> validate(Session& session, Options& o) {
  std::vector<GraphOptions> graph_options{o.first_graph};
  for (std::size_t i = 0; i < o.later_graphs.size(); ++i) {
    GraphOptions& g = graph_options.emplace_back();
    CLI::App cli;
    add_graph_options([&](const std::string& name, auto& value,
                          const std::string& help) { cli.add_option(name, value, help); },
                      g);
    std::vector<std::string> args = o.later_graphs[i];
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
    try {
      cli.parse(args);
    } catch (const CLI::ParseError& e) {
      session.fail("-and", fmt::format("graph {}: {}", i + 2, e.what()));
    }
  }
  const bool several = graph_options.size() > 1;
  std::vector<RunConfig> configs;
  for (std::size_t i = 0; i < graph_options.size(); ++i) {
    configs.push_back(validate_graph(session, o, graph_options[i], static_cast<long>(i),
                                     several ? fmt::format("graph {}: ", i + 1) : ""));
  }
  // Before check_config: checking a graph visits every point.
  const bool sized = std::all_of(configs.begin(), configs.end(), [](const RunConfig& c) {
    return c.graph.timesteps > 0 && c.graph.max_width > 0 && c.graph.radix >= 0 &&
           c.graph.period >= 0 && c.output_bytes >= 0 && c.scratch_bytes >= 0 &&
           (c.graph.period > 0 || !needs_period(c.graph.type));
  });
  if (sized) {
    session.check_memory("-width/-output/-scratch",
                         GraphSetExecution::memory_needed(configs, session.size()));
  }
  // Each rank checks the dependency lists of its own points; all ranks then report the
  // lowest failing rank's finding (first failing graph), which each recomputes from that
  // rank's points.
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const RunConfig& c = configs[i];
    const BlockDistribution points{c.graph.max_width, session.size()};
    const auto problem_in = [&](int rank) {
      return check_config(c, points.first(rank), points.end(rank));
    };
    int failing = problem_in(session.rank()) ? session.rank() : session.size();
    MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (failing < session.size()) {
      const auto problem = problem_in(failing);
      session.fail(problem->option,
                   (several ? fmt::format("graph {}: ", i + 1) : "") + problem->message);
    }
  }
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  long tags = 0;
  for (const RunConfig& c : configs) tags += 2 * c.graph.max_width;
  if (found && tags > static_cast<long>(*tag_ub)) {
    session.fail("-width",
                 fmt::format("needs {} MPI tags, more than MPI_TAG_UB = {}", tags, *tag_ub));
  }
  if (!o.corrupt.empty()) {
    if (o.corrupt_graph < 1 || o.corrupt_graph > static_cast<long>(configs.size())) {
      session.fail("--corrupt-graph", fmt::format("graph {} does not exist", o.corrupt_graph));
    }
    const TaskGraph& g = configs[static_cast<std::size_t>(o.corrupt_graph - 1)].graph;
    if (o.corrupt[0] < 0 || o.corrupt[0] >= g.timesteps || !g.exists(o.corrupt[0], o.corrupt[1])) {
      session.fail("--corrupt", fmt::format("task (timestep {}, point {}) does not exist",
                                            o.corrupt[0], o.corrupt[1]));
    }
  }
  return configs;
}

int run(Session& session, Options& options) {
  session.start();
  // A config file holds one graph's options: the graphs after -and cannot go in it.
  if (!options.later_graphs.empty() && !session.options().write_config.empty())
    session.fail("--write-config",
                 "cannot write the graphs after -and to a config file; "
                 "leave out --write-config to run several graphs");
  const std::vector<RunConfig> configs = validate(session, options);
  CorruptTask corrupt;
  if (!options.corrupt.empty()) corrupt = std::pair(options.corrupt[0], options.corrupt[1]);

  GraphSetExecution execution(session, configs, corrupt, options.corrupt_graph - 1);
  session.set_phase("graph execution");
  if (session.rank() == 0) {
    std::string text = "Running Task Benchmark\n  Configuration:\n";
    for (std::size_t i = 0; i < configs.size(); ++i) {
      text += graph_configuration_text(configs[i], static_cast<long>(i) + 1);
      if (options.verbose) text += dependency_listing(DependencyTable(configs[i].graph));
    }
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }

  // A warm-up run, then the timed one, as Task Bench's MPI implementation does.
  double elapsed = 0;
  for (int run = 0; run < 2; ++run) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    execution.submit_graphs();
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
  // Each rank counts its own points; the counts are integers, so their sums are exact.
  std::vector<Totals> graph_totals;
  std::vector<long long> counts;
  for (const RunConfig& c : configs) {
    const BlockDistribution points{c.graph.max_width, session.size()};
    const Totals t = count_totals(c, points.first(session.rank()), points.end(session.rank()));
    counts.insert(counts.end(),
                  {t.tasks, t.dependencies, t.local_dependencies, t.nonlocal_dependencies, t.flops,
                   t.bytes, t.local_transfer, t.nonlocal_transfer});
  }
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_LONG_LONG,
                MPI_SUM, MPI_COMM_WORLD);
  Totals totals;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const long long* n = counts.data() + 8 * i;
    graph_totals.push_back({n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]});
    totals += graph_totals.back();
  }
  long long verified = execution.inputs_verified();
  MPI_Allreduce(MPI_IN_PLACE, &verified, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (verified != 2 * totals.dependencies) {
    throw std::runtime_error(
        fmt::format("verification failed: tasks checked {} inputs in two "
                    "runs, expected {}",
                    verified, 2 * totals.dependencies));
  }
  if (session.rank() == 0) {
    std::fputs(summary_text(options.nodes, totals, elapsed).c_str(), stdout);
    std::fflush(stdout);
  }
  const GraphExecution::SteadyRange& steady = execution.steady_range();
  nlohmann::json graphs = nlohmann::json::array();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const RunConfig& c = configs[i];
    graphs.push_back(
        {{"type", std::string(to_string(c.graph.type))},
         {"kernel", std::string(to_string(c.kernel.type))},
         {"steps", c.graph.timesteps},
         {"width", c.graph.max_width},
         {"iterations", c.kernel.iterations},
         {"output_bytes", c.output_bytes},
         {"tasks", graph_totals[i].tasks},
         {"dependencies", graph_totals[i].dependencies},
         {"flops", graph_totals[i].flops},
         {"bytes", graph_totals[i].bytes},
         {"replayed_timesteps", execution.replayed(i) ? steady.count * steady.period : 0}});
  }
  // The first graph's description stays at the top level (as for a run of one graph);
  // the counts there add up all graphs, and "graphs" lists each.
  const RunConfig& first = configs.front();
  session.finish({{"checksum", fmt::format("{}", verified)},
                  {"solve_s", elapsed},
                  {"taskbench",
                   {{"type", std::string(to_string(first.graph.type))},
                    {"kernel", std::string(to_string(first.kernel.type))},
                    {"steps", first.graph.timesteps},
                    {"width", first.graph.max_width},
                    {"iterations", first.kernel.iterations},
                    {"tasks", totals.tasks},
                    {"dependencies", totals.dependencies},
                    {"flops", totals.flops},
                    {"replayed_timesteps", graphs[0]["replayed_timesteps"]},
                    {"bytes", totals.bytes},
                    {"graphs", graphs}}}});
  return 0;
}

}  // namespace
}  // namespace tessera::taskbench

int main(int argc, char** argv) {
  // The flags of the graphs after the first are split off at -and here, ahead of the
  // parsing of everything else (which sees the first graph's flags and the run's).
  tessera::taskbench::GraphArguments args =
      tessera::taskbench::split_graphs(tessera::taskbench::translate_task_bench_flags(argc, argv));
  std::vector<char*> translated;
  for (std::string& a : args.run) translated.push_back(a.data());
  translated.push_back(nullptr);
  tessera::Session session(static_cast<int>(args.run.size()), translated.data(), "taskbench",
                           "Task Bench patterns and kernels as tessera task graphs; -and "
                           "separates the flags of several graphs run concurrently");
  tessera::taskbench::Options options;
  options.later_graphs = std::move(args.later_graphs);
  tessera::taskbench::add_options(session, options);
  return tessera::run_guarded([&] {
    if (args.problem) {
      session.start();
      session.fail(args.problem->first, args.problem->second);
    }
    return tessera::taskbench::run(session, options);
  });
}
