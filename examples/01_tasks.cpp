// 01_tasks: the data-flow runtime on its own, without MPI. Each task lists the handles it
// reads and writes; the runtime runs tasks in parallel where those accesses allow and
// otherwise in program order, so the results are those of a plain sequential program.
#include <cstdio>
#include <vector>

#include "tessera/tessera.hpp"

int main() {
  using tessera::read, tessera::write;
  // Two threads: the main thread, which submits and also runs tasks, plus one worker.
  tessera::Runtime runtime(tessera::RuntimeOptions{.threads = 2});

  // The data are ordinary memory; a handle only names a datum for the dependency analysis.
  std::vector<double> a(1000), b(1000);
  double sum_a = 0, sum_b = 0;
  const tessera::Handle ha = runtime.create_handle("a"), hb = runtime.create_handle("b");
  const tessera::Handle hsa = runtime.create_handle("sum_a");
  const tessera::Handle hsb = runtime.create_handle("sum_b");

  // Writes a: nothing submitted before touches a, so it may start at once.
  runtime.submit("fill a", {write(ha)}, [&a] {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i);
  });
  // Reads a: waits for "fill a" (read after write) and writes b.
  runtime.submit("square", {read(ha), write(hb)}, [&a, &b] {
    for (std::size_t i = 0; i < a.size(); ++i) b[i] = a[i] * a[i];
  });
  // Also reads a: two readers of one handle do not wait for each other, so this task may
  // run beside "square" on the other thread.
  runtime.submit("sum a", {read(ha), write(hsa)}, [&a, &sum_a] {
    for (double x : a) sum_a += x;
  });
  // Reads b, so it runs after "square".
  runtime.submit("sum b", {read(hb), write(hsb)}, [&b, &sum_b] {
    for (double x : b) sum_b += x;
  });
  // Overwrites a: waits until both readers of a are done (write after read), so neither
  // of them can see the new values.
  runtime.submit("reset a", {write(ha)}, [&a] {
    for (double& x : a) x = 0;
  });

  // A wait on one datum: returns once sum_b is written, whatever else is still running.
  runtime.wait_for(hsb);
  std::printf("01_tasks: sum of squares %.0f\n", sum_b);
  // A wait on everything: the main thread runs tasks itself until none is left.
  runtime.wait_all();
  std::printf("01_tasks: sum %.0f, a[999] after reset %.0f, %llu tasks\n", sum_a, a[999],
              static_cast<unsigned long long>(runtime.tasks_completed()));
  return 0;
}
