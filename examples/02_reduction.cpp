// 02_reduction: a global sum that is the same bits on any number of ranks and threads.
// Floating-point addition is not associative, so a sum split over tasks and ranks usually
// depends on the split; tessera's ExactSum adds without rounding, so it does not.
#include <CLI/CLI.hpp>  // Session::cli() is a CLI11 parser: add options with its API
#include <cstdint>

#include "tessera/tessera.hpp"

using namespace tessera;

int run(int argc, char** argv) {
  // The session initializes MPI, builds the runtime and parses the common options
  // (--exec, --threads, --report, ...) together with this program's own.
  Session session(argc, argv, "02_reduction", "sum of 1/k^2 over ranks and tasks");
  std::int64_t terms = 1'000'000;
  int tasks = 16;
  session.cli().add_option("--terms", terms, "terms of the series")->check(CLI::PositiveNumber);
  session.cli().add_option("--tasks", tasks, "tasks per rank")->check(CLI::PositiveNumber);
  session.start();  // a bad option ends every rank here with one line naming it

  // Rank r sums terms [first, last): a balanced split that works for any rank count.
  const std::int64_t first = terms * session.rank() / session.size();
  const std::int64_t last = terms * (session.rank() + 1) / session.size();

  // A reduction handle: every task that `reduce`s it gets a private ExactSum slot, and the
  // slots are folded into `sum` with this function once the reducing tasks are done.
  ExactSum sum;
  Runtime& runtime = session.runtime();
  const Handle h = runtime.create_reduction_handle(
      "sum", &sum, [](ExactSum& total, const ExactSum& part) { total.add(part); });
  for (int t = 0; t < tasks; ++t) {
    const std::int64_t begin = first + (last - first) * t / tasks;
    const std::int64_t end = first + (last - first) * (t + 1) / tasks;
    // Reducers of one handle run concurrently: each adds into its own slot.
    runtime.submit("partial sum", {reduce(h)}, [h, begin, end](TaskContext& ctx) {
      ExactSum& slot = ctx.reduction_slot<ExactSum>(h);
      for (std::int64_t k = begin + 1; k <= end; ++k) slot.add(1.0 / (double(k) * double(k)));
    });
  }
  // A communication task: after the local reducers it replaces `sum` on every rank by the
  // exact sum over all ranks. wait_for then waits for that one result only.
  session.comm().iallreduce_sum(h, &sum);
  runtime.wait_for(h);

  const double value = sum.value();
  session.say("02_reduction: sum of 1/k^2 for k = 1..{} is {:.15f} (bits {})", terms, value,
              hex_bits(value));
  // finish() prints the run's summary line and writes the --report JSON.
  session.finish({{"checksum", hex_bits(value)}, {"sum", value}});
  return 0;
}

// run_guarded turns an exception on one rank into a clean abort of all ranks, not a hang.
int main(int argc, char** argv) {
  return run_guarded([&] { return run(argc, argv); });
}
