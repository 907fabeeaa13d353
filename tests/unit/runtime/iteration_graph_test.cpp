// Iteration graphs: a replay gives the results of submitting the recorded tasks again.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tessera/runtime.hpp"

namespace tessera {
namespace {

// A two-stage stencil on a ring of cells, double-buffered: every iteration reads a's
// neighbours into b, then b's into a.
std::vector<std::int64_t> run_stencil(int threads, bool replay, int cells, int iterations) {
  Runtime rt(RuntimeOptions{.threads = threads});
  std::vector<std::int64_t> a(cells), b(cells);
  for (int i = 0; i < cells; ++i) a[i] = i * 7 + 1;
  std::vector<Handle> ha, hb;
  for (int i = 0; i < cells; ++i) {
    ha.push_back(rt.create_handle("a"));
    hb.push_back(rt.create_handle("b"));
  }
  const auto submit_iteration = [&](auto iteration_of) {
    for (int i = 0; i < cells; ++i) {
      const int l = (i + cells - 1) % cells, r = (i + 1) % cells;
      rt.submit("ab", {read(ha[l]), read(ha[i]), read(ha[r]), write(hb[i])},
                [&, i, l, r, iteration_of](TaskContext& ctx) {
                  b[i] = a[l] + 3 * a[i] - a[r] + iteration_of(ctx);
                });
    }
    for (int i = 0; i < cells; ++i) {
      const int l = (i + cells - 1) % cells, r = (i + 1) % cells;
      rt.submit("ba", {read(hb[l]), read(hb[i]), read(hb[r]), write(ha[i])},
                [&, i, l, r](TaskContext&) { a[i] = (b[l] ^ b[r]) + b[i] % 1000003; });
    }
  };
  if (replay) {
    rt.begin_recording();
    submit_iteration([](TaskContext& ctx) { return ctx.iteration(); });
    const IterationGraph g = rt.end_recording();
    EXPECT_EQ(g.size(), static_cast<std::size_t>(2 * cells));
    rt.replay(g, 0, iterations);
  } else {
    for (int it = 0; it < iterations; ++it) {
      submit_iteration([it](TaskContext&) { return static_cast<std::int64_t>(it); });
    }
    rt.wait_all();
  }
  return a;
}

TEST(IterationGraph, ReplayMatchesSubmission) {
  const auto expected = run_stencil(1, false, 17, 50);
  for (int threads : {1, 2, 4}) {
    EXPECT_EQ(run_stencil(threads, true, 17, 50), expected) << threads << " threads";
  }
}

}  // namespace
}  // namespace tessera
