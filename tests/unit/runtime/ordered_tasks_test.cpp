// TaskAttributes::order: ready ordered tasks start smallest key first, after unordered
// ones, without breaking dependencies.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <random>
#include <vector>

#include "tessera/runtime/runtime.hpp"

namespace tessera {
namespace {

TaskAttributes ordered(std::int64_t key) {
  TaskAttributes a;
  a.order = key;
  return a;
}

TEST(OrderedTasks, ReadyOnesRunSmallestKeyFirstOnOneThread) {
  Runtime rt(RuntimeOptions{.threads = 1});
  std::vector<std::int64_t> keys(200);
  std::iota(keys.begin(), keys.end(), 0);
  std::mt19937 rng(7);
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<std::int64_t> ran;
  for (std::int64_t k : keys)
    rt.submit(
        "ordered", {}, [&ran, k] { ran.push_back(k); }, ordered(k));
  rt.wait_all();
  ASSERT_EQ(ran.size(), keys.size());
  EXPECT_TRUE(std::is_sorted(ran.begin(), ran.end()));
}

TEST(OrderedTasks, EqualKeysRunInSubmissionOrderAfterUnorderedTasks) {
  Runtime rt(RuntimeOptions{.threads = 1});
  std::vector<int> ran;
  for (int i = 0; i < 10; ++i)
    rt.submit(
        "ordered", {}, [&ran, i] { ran.push_back(i); }, ordered(5));
  rt.submit("unordered", {}, [&ran] { ran.push_back(-1); });
  rt.wait_all();
  ASSERT_EQ(ran.size(), 11u);
  EXPECT_EQ(ran.front(), -1);
  EXPECT_TRUE(std::is_sorted(ran.begin() + 1, ran.end()));
}

TEST(OrderedTasks, DependenciesOverruleKeys) {
  for (int threads : {1, 2}) {
    Runtime rt(RuntimeOptions{.threads = threads});
    const Handle h = rt.create_handle("h");
    std::vector<char> ran;
    std::mutex m;
    // The writer has the larger key but the reader depends on it.
    rt.submit(
        "writer", {write(h)},
        [&] {
          std::lock_guard<std::mutex> l(m);
          ran.push_back('w');
        },
        ordered(100));
    rt.submit(
        "reader", {read(h)},
        [&] {
          std::lock_guard<std::mutex> l(m);
          ran.push_back('r');
        },
        ordered(1));
    rt.wait_all();
    EXPECT_EQ(ran, (std::vector<char>{'w', 'r'})) << threads << " thread(s)";
  }
}

// A 1-D Jacobi-like wavefront: cell i at step s reads cells i-1..i+1 of step s-1. Keys
// of any order must give the sequential results on any thread count.
constexpr int kCells = 24, kSteps = 12;

TEST(OrderedTasks, WavefrontGivesTheSequentialResult) {
  auto solve = [&](int threads, bool sequential, std::int64_t (*key)(int, int)) {
    Runtime rt(RuntimeOptions{.threads = threads, .sequential = sequential});
    std::vector<std::vector<double>> u(2, std::vector<double>(kCells));
    for (int i = 0; i < kCells; ++i) u[0][i] = i * i % 7;
    std::vector<Handle> h[2];
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < kCells; ++i) h[b].push_back(rt.create_handle("u"));
    for (int s = 1; s <= kSteps; ++s) {
      const int in = (s - 1) % 2, out = s % 2;
      for (int i = 0; i < kCells; ++i) {
        std::vector<Access> acc{write(h[out][i])};
        for (int j = std::max(0, i - 1); j <= std::min(kCells - 1, i + 1); ++j)
          acc.push_back(read(h[in][j]));
        rt.submit(
            "cell", acc,
            [&u, in, out, i] {
              const double l = i > 0 ? u[in][i - 1] : 0, r = i < kCells - 1 ? u[in][i + 1] : 0;
              u[out][i] = (l + r + u[in][i]) / 3;
            },
            ordered(key(s, i)));
      }
    }
    rt.wait_all();
    return u[kSteps % 2];
  };
  const auto reference = solve(1, true, [](int, int) -> std::int64_t { return 0; });
  const auto skewed = [](int s, int i) -> std::int64_t { return 2 * s + i; };
  const auto backwards = [](int s, int i) -> std::int64_t { return -(s * 100 + i); };
  for (int threads : {1, 2}) {
    EXPECT_EQ(solve(threads, false, skewed), reference) << threads << " thread(s)";
    EXPECT_EQ(solve(threads, false, backwards), reference) << threads << " thread(s)";
  }
}

}  // namespace
}  // namespace tessera
