// The umbrella header is all a program needs: with only "tessera/tessera.hpp" included, a
// program runs tasks on a block layout's cells with the runtime, and every layer's public
// header compiles beside the others in one translation unit (no duplicate names across
// layers). Layers that need MPI are exercised by the MPI tests and the examples.
#include "tessera/tessera.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(UmbrellaHeader, IsEnoughToRunTasksOnABlock) {
  tessera::Runtime runtime(tessera::RuntimeOptions{.threads = 2});
  const tessera::BlockLayout layout({4, 3, 2}, {1, 1, 1}, 2);
  std::vector<double> block(layout.size(), 0.0);
  const tessera::Handle cells = runtime.create_handle("cells");
  const tessera::Handle total = runtime.create_handle("total");
  double sum = 0;
  // Fill every interior cell of both variables, then sum them in a dependent task.
  runtime.submit("fill", {tessera::write(cells)}, [&] {
    for (int v = 0; v < 2; ++v)
      for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 3; ++j)
          for (int i = 0; i < 4; ++i) block[layout.index(v, i, j, k)] = 1.0 + v;
  });
  runtime.submit("sum", {tessera::read(cells), tessera::write(total)}, [&] {
    for (int v = 0; v < 2; ++v)
      for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 3; ++j)
          for (int i = 0; i < 4; ++i) sum += block[layout.index(v, i, j, k)];
  });
  runtime.wait_for(total);
  EXPECT_EQ(sum, 24.0 * 1.0 + 24.0 * 2.0);
  runtime.wait_all();
  EXPECT_EQ(runtime.tasks_completed(), 2u);
  // Ghost cells exist around the interior and were never written.
  EXPECT_EQ(block[layout.index(0, -1, 0, 0)], 0.0);
  EXPECT_EQ(block[layout.index(1, 4, 2, 1)], 0.0);
}

}  // namespace
