// TraceRecorder on 1, 2 and 4 ranks: the written trace holds every task once with its
// accesses and tags, no thread runs two tasks at once, dependencies hold, every message
// is paired across ranks (with a flow), and per-rank facts match what the ranks saw.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "observed_program.hpp"
#include "tessera/obs/trace_recorder.hpp"
#include "tessera/runtime/runtime.hpp"
#include "trace_validation.hpp"

namespace tessera::obs_test {
namespace {

struct World {
  int rank = 0;
  int size = 1;
  World() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
};

// The mode letters of a task's "acc" string ("rw12 r7" -> {"rw", "r"}); a token that is
// not letters followed by digits yields an empty string, so it never matches a mode.
std::vector<std::string> access_modes(const std::string& acc) {
  std::vector<std::string> modes;
  std::istringstream tokens(acc);
  for (std::string token; tokens >> token;) {
    const std::size_t digits = token.find_first_of("0123456789");
    const bool well_formed = digits != std::string::npos && digits > 0 &&
                             token.find_first_not_of("0123456789", digits) == std::string::npos &&
                             token.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == digits;
    modes.push_back(well_formed ? token.substr(0, digits) : std::string());
  }
  return modes;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

struct ModeCase {
  const char* label;
  RuntimeOptions options;
};

const ModeCase kModes[] = {
    {"sequential", RuntimeOptions{.sequential = true}},
    {"threads1", RuntimeOptions{.threads = 1}},
    {"threads2", RuntimeOptions{.threads = 2}},
    {"threads3", RuntimeOptions{.threads = 3, .steal_seed = 7}},
};

TEST(TraceRecorder, RingProgramTraceIsCompleteOrderedAndPairedUnderEveryModel) {
  const World world;
  const ProgramShape shape;
  std::set<double> finals;
  for (const ModeCase& mode : kModes) {
    SCOPED_TRACE(mode.label);
    const std::string path =
        shared_trace_path(std::string("ring_") + mode.label + "_np" + std::to_string(world.size));
    const ProgramRun run = run_observed_program(mode.options, shape, path);
    finals.insert(run.final_value);
    // Every rank's own submission count, for rank 0 to compare with the file.
    std::vector<std::uint64_t> submitted(world.size);
    MPI_Gather(&run.tasks_submitted, 1, MPI_UINT64_T, submitted.data(), 1, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    if (world.rank == 0) {
      const nlohmann::json trace = read_json(path);
      for (const std::string& violation : validate_trace(trace)) ADD_FAILURE() << violation;

      const nlohmann::json& meta = trace.at("tessera");
      EXPECT_EQ(meta.at("ranks").get<int>(), world.size);
      EXPECT_EQ(meta.at("tasks_submitted").get<std::vector<std::uint64_t>>(), submitted);
      const int threads = mode.options.sequential ? 1 : mode.options.threads;

      std::map<std::string, std::uint64_t> traced_names;
      std::map<int, std::uint64_t> tasks_per_rank, sends_per_rank, allreduces_per_rank;
      int flow_starts = 0, flow_ends = 0;
      for (const auto& e : trace.at("traceEvents")) {
        const std::string ph = e.value("ph", "");
        if (ph == "s") ++flow_starts;
        if (ph == "f") ++flow_ends;
        if (ph != "X") continue;
        const auto& args = e.at("args");
        const int pid = e.at("pid").get<int>();
        const int tid = e.at("tid").get<int>();
        if (!e.contains("cat")) {
          const std::string name = e.at("name").get<std::string>();
          ++traced_names[name];
          ++tasks_per_rank[pid];
          EXPECT_GE(tid, 0);
          EXPECT_LT(tid, threads) << name;
          if (args.contains("queued")) {
            EXPECT_GE(args.at("queued").get<double>(), 0.0) << name;
          }
          const std::string accesses = args.value("acc", "");
          if (name == "update") {
            EXPECT_EQ(access_modes(accesses), (std::vector<std::string>{"rw", "r"})) << accesses;
          }
          if (name == "observe") {
            ASSERT_EQ(args.at("tags").size(), 2u);
            EXPECT_LT(args.at("tags").at(0).get<int>(), shape.rounds);
            EXPECT_LT(args.at("tags").at(1).get<int>(), shape.readers);
            const std::vector<std::string> modes = access_modes(accesses);
            ASSERT_EQ(modes.size(), 2u) << accesses;
            EXPECT_FALSE(modes[0].empty()) << accesses;
            EXPECT_EQ(modes[1], "red") << accesses;
          }
          if (name == "isend" || name == "irecv") {
            EXPECT_EQ(tid, 0) << "communication tasks run on the main thread";
            EXPECT_TRUE(args.value("main_thread_only", false));
          }
        } else if (e.at("cat") == "mpi") {
          EXPECT_GE(tid, 1000);
          const std::string kind = args.at("kind").get<std::string>();
          if (kind == "send") {
            ++sends_per_rank[pid];
            EXPECT_EQ(args.at("peer").get<int>(), (pid + 1) % world.size);
            EXPECT_EQ(args.at("bytes").get<std::size_t>(), shape.width * sizeof(double));
            EXPECT_TRUE(args.contains("message")) << "send without a matched receive";
          }
          if (kind == "allreduce") ++allreduces_per_rank[pid];
        }
      }
      for (int r = 0; r < world.size; ++r) {
        EXPECT_EQ(tasks_per_rank[r], submitted[r]) << "rank " << r;
        EXPECT_EQ(sends_per_rank[r], static_cast<std::uint64_t>(shape.rounds)) << "rank " << r;
        EXPECT_EQ(allreduces_per_rank[r], static_cast<std::uint64_t>(shape.rounds / 4));
      }
      EXPECT_EQ(flow_starts, shape.rounds * world.size);
      EXPECT_EQ(flow_ends, shape.rounds * world.size);
      // The trace and the statistics saw the same tasks.
      for (const auto& [name, entry] : run.stats.at("tasks").items()) {
        EXPECT_EQ(traced_names[name], entry.at("count").get<std::uint64_t>()) << name;
      }
      EXPECT_EQ(traced_names.size(), run.stats.at("tasks").size());
      EXPECT_EQ(traced_names["observe"],
                static_cast<std::uint64_t>(shape.rounds * shape.readers * world.size));
    }
    remove_trace(path);
  }
  EXPECT_EQ(finals.size(), 1u) << "observing changed the result";
}

TEST(TraceRecorder, TraceFormattedByRuntimeThreadsInManyRoundsHoldsEveryTaskOnce) {
  // More tasks than one round of writing formats (32768 per rank), spread over three
  // threads, so the text comes from several ranges per thread and several rounds: 70000
  // (three rounds), or fewer in sanitizer trees (TESSERA_TRACE_TASKS, tests/CMakeLists.txt),
  // where twelve threads of four ranks share two cores; at least 40000 (two rounds).
  const World world;
  const int tasks = [] {
    const char* env = std::getenv("TESSERA_TRACE_TASKS");
    return env ? std::max(40'000, std::atoi(env)) : 70'000;
  }();
  const std::string path = shared_trace_path("rounds_np" + std::to_string(world.size));
  {
    Runtime rt(RuntimeOptions{.threads = 3});
    TraceRecorder trace(3, MPI_COMM_WORLD);
    rt.set_observer(&trace);
    std::vector<Handle> handles;
    for (int h = 0; h < 16; ++h) handles.push_back(rt.create_handle("h"));
    for (int i = 0; i < tasks; ++i) {
      const Handle h = handles[i % handles.size()];
      rt.submit("touch", {i % 3 == 0 ? write(h) : read(h)}, [] {});
    }
    rt.wait_all();
    rt.set_observer(nullptr);
    trace.write(path, MPI_COMM_WORLD, &rt);
  }
  if (world.rank == 0) {
    const nlohmann::json trace = read_json(path);
    for (const std::string& violation : validate_trace(trace)) ADD_FAILURE() << violation;
    std::map<int, std::set<std::uint64_t>> ids;
    std::size_t events = 0;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.value("ph", "") != "X" || e.contains("cat")) continue;
      ids[e.at("pid").get<int>()].insert(e.at("args").at("id").get<std::uint64_t>());
      ++events;
    }
    EXPECT_EQ(events, static_cast<std::size_t>(tasks) * world.size) << "a task written twice";
    for (int r = 0; r < world.size; ++r) {
      ASSERT_EQ(ids[r].size(), static_cast<std::size_t>(tasks)) << "rank " << r;
      EXPECT_EQ(*ids[r].begin(), 1u);
      EXPECT_EQ(*ids[r].rbegin(), static_cast<std::uint64_t>(tasks));
    }
  }
  remove_trace(path);
}

TEST(TraceRecorder, UnwritablePathFailsOnEveryRankNamingThePath) {
  TraceRecorder trace(1, MPI_COMM_WORLD);
  const std::string path = "/nonexistent-tessera-dir/trace.json";
  try {
    trace.write(path, MPI_COMM_WORLD);
    ADD_FAILURE() << "writing to " << path << " did not fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  // Every rank reached the same verdict and is still in step.
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(TraceRecorder, EmptyRecordingIsAValidTraceWithRankAndThreadNames) {
  const World world;
  const std::string path = shared_trace_path("empty_np" + std::to_string(world.size));
  {
    TraceRecorder trace(2, MPI_COMM_WORLD);
    trace.write(path, MPI_COMM_WORLD);
  }
  if (world.rank == 0) {
    const nlohmann::json trace = read_json(path);
    std::set<int> named_processes;
    int thread_names = 0;
    for (const auto& e : trace.at("traceEvents")) {
      EXPECT_EQ(e.at("ph"), "M") << "no task ran, so only metadata is expected";
      if (e.at("name") == "process_name") named_processes.insert(e.at("pid").get<int>());
      if (e.at("name") == "thread_name") ++thread_names;
    }
    EXPECT_EQ(named_processes.size(), static_cast<std::size_t>(world.size));
    EXPECT_EQ(thread_names, 2 * world.size);
  }
  remove_trace(path);
}

}  // namespace
}  // namespace tessera::obs_test
