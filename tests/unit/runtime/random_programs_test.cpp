// Property test: random task programs over random handles and modes give, with 1, 2 and
// 4 threads, random steal orders, and queues deep enough that tasks run at submission,
// exactly the result of sequential execution.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

struct TaskSpec {
  std::vector<std::pair<int, AccessMode>> accesses;  // distinct handles
  std::uint64_t salt;
  int spin;  // busy work, to perturb the schedule
};

struct Program {
  int handles;
  std::vector<TaskSpec> tasks;
};

Program random_program(std::mt19937_64& rng) {
  Program p;
  p.handles = 1 + static_cast<int>(rng() % 8);
  const int ntasks = 10 + static_cast<int>(rng() % 60);
  for (int t = 0; t < ntasks; ++t) {
    TaskSpec spec;
    spec.salt = rng();
    spec.spin = (rng() % 4 == 0) ? static_cast<int>(rng() % 2000) : 0;
    const int nacc = static_cast<int>(rng() % 4);  // 0..3 accesses
    for (int a = 0; a < nacc; ++a) {
      int h = static_cast<int>(rng() % p.handles);
      bool dup = false;
      for (auto& [hh, m] : spec.accesses) dup |= hh == h;
      if (dup) continue;
      spec.accesses.emplace_back(h, static_cast<AccessMode>(rng() % 4));
    }
    p.tasks.push_back(std::move(spec));
  }
  return p;
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  x ^= x >> 31;
  return x * 0xBF58476D1CE4E5B9ull;
}

// Runs `p` and returns the final value of every handle. A task reads the values of its
// read/readwrite handles, then overwrites its write/readwrite handles with a hash of
// what it read, and contributes to its reduce handles; the fold is not commutative, so
// any reordering of reducers changes the result.
// With `fillers` > 0, the first third of the program runs to completion (wait_all), and
// `fillers` empty tasks are queued before its last third: with that many queued, the
// runtime runs ready tasks at submission (its throttle), the path that can skip access
// groups, while tasks of the middle third still wait in groups that may have completed.
std::vector<std::uint64_t> execute(Runtime& rt, const Program& p, int fillers = 0) {
  std::vector<std::uint64_t> values(p.handles, 0);
  std::vector<Handle> handles;
  for (int i = 0; i < p.handles; ++i) {
    handles.push_back(rt.create_reduction_handle(
        "h", &values[i], [](std::uint64_t& into, std::uint64_t slot) { into = mix(into, slot); }));
  }
  for (std::size_t t = 0; t < p.tasks.size(); ++t) {
    if (fillers > 0 && t == p.tasks.size() / 3) rt.wait_all();
    if (fillers > 0 && t == 2 * p.tasks.size() / 3) {
      for (int i = 0; i < fillers; ++i) rt.submit("filler", {}, [] {});
    }
    const TaskSpec& spec = p.tasks[t];
    std::vector<Access> accesses;
    for (auto& [h, m] : spec.accesses) accesses.push_back(Access{handles[h], m});
    const auto work = [&values, &handles, &spec](TaskContext* ctx) {
      volatile int sink = 0;
      for (int i = 0; i < spec.spin; ++i) sink = sink + i;
      std::uint64_t acc = spec.salt;
      for (auto& [h, m] : spec.accesses) {
        if (m == AccessMode::read || m == AccessMode::readwrite) acc = mix(acc, values[h]);
      }
      for (auto& [h, m] : spec.accesses) {
        if (m == AccessMode::write) values[h] = acc;
        if (m == AccessMode::readwrite) values[h] = mix(values[h], acc);
        // Only tasks without reduce accesses get a body without a context.
        if (m == AccessMode::reduce && ctx) ctx->reduction_slot<std::uint64_t>(handles[h]) = acc;
      }
    };
    // Bodies without a TaskContext may run at submission without a task node, those
    // with one through the task path: both kinds, mixed.
    bool reduces = false;
    for (auto& access : spec.accesses) reduces |= access.second == AccessMode::reduce;
    if (!reduces && (spec.salt & 1)) {
      rt.submit("random", std::span<const Access>(accesses), [work] { work(nullptr); });
    } else {
      rt.submit("random", std::span<const Access>(accesses),
                [work](TaskContext& ctx) { work(&ctx); });
    }
  }
  rt.wait_all();
  return values;
}

int program_count() {
  if (const char* env = std::getenv("TESSERA_RANDOM_PROGRAMS")) return std::atoi(env);
  return 5000;
}

TEST(RandomPrograms, ThreadedExecutionEqualsSequentialBitForBit) {
  const int count = program_count();
  std::mt19937_64 rng(20261121);
  Runtime sequential(RuntimeOptions{.sequential = true});
  // Threads, and empty tasks queued before each program (64 per thread: the throttle).
  struct Config {
    int threads;
    int fillers;
  };
  const Config configs[] = {{1, 0}, {2, 0}, {4, 0}, {1, 64}, {2, 128}};
  std::vector<std::unique_ptr<Runtime>> runtimes;
  int mismatches = 0;
  for (int i = 0; i < count; ++i) {
    // Fresh runtimes (and steal orders) every 250 programs.
    if (i % 250 == 0) {
      runtimes.clear();
      for (const Config& c : configs) {
        runtimes.push_back(std::make_unique<Runtime>(
            RuntimeOptions{.threads = c.threads, .steal_seed = rng() | 1, .hang_timeout_s = 60}));
      }
    }
    const Program p = random_program(rng);
    const auto expected = execute(sequential, p);
    for (std::size_t k = 0; k < runtimes.size(); ++k) {
      const auto got = execute(*runtimes[k], p, configs[k].fillers);
      if (got != expected) {
        ++mismatches;
        ADD_FAILURE() << "program " << i << " differs with " << configs[k].threads
                      << " threads and " << configs[k].fillers << " tasks queued before it";
      }
    }
    if (mismatches > 5) break;
  }
  EXPECT_EQ(mismatches, 0);
  RecordProperty("programs", count);
}

}  // namespace
}  // namespace tessera
