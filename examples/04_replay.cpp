// 04_replay: record the tasks of one iteration once, then replay them many times. Each
// submission pays for its dependency analysis; a replay pays for it once per recorded
// graph, which is what makes tasks of a few microseconds or less worth running as tasks.
#include <CLI/CLI.hpp>  // Session::cli() is a CLI11 parser: add options with its API
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

// A ring of cells smoothed twice per iteration, a into b and back: two tasks per chunk.
struct Ring {
  std::vector<double> a, b;
  std::vector<Handle> ha, hb;  // one handle per chunk of each array
};

// Submits one iteration. The bodies capture only pointers and indices and never modify
// them, as replay requires: it calls the same recorded bodies for every iteration.
void submit_iteration(Runtime& runtime, Ring& ring, int chunk_cells) {
  const int chunks = static_cast<int>(ring.ha.size()), n = chunks * chunk_cells;
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<Handle>& from = pass == 0 ? ring.ha : ring.hb;
    const std::vector<Handle>& to = pass == 0 ? ring.hb : ring.ha;
    const double* in = pass == 0 ? ring.a.data() : ring.b.data();
    double* out = pass == 0 ? ring.b.data() : ring.a.data();
    for (int c = 0; c < chunks; ++c) {
      const Handle left = from[(c + chunks - 1) % chunks], right = from[(c + 1) % chunks];
      runtime.submit("smooth", {read(left), read(from[c]), read(right), write(to[c])},
                     [in, out, n, lo = c * chunk_cells, hi = (c + 1) * chunk_cells] {
                       for (int i = lo; i < hi; ++i)
                         out[i] = 0.25 * in[(i + n - 1) % n] + 0.5 * in[i] + 0.25 * in[(i + 1) % n];
                     });
    }
  }
}

Ring make_ring(Runtime& runtime, int chunks, int chunk_cells) {
  Ring ring{std::vector<double>(chunks * chunk_cells), std::vector<double>(chunks * chunk_cells)};
  for (int c = 0; c < chunks; ++c) {
    ring.ha.push_back(runtime.create_handle("a"));
    ring.hb.push_back(runtime.create_handle("b"));
  }
  ring.a[0] = 1.0;  // all the mass in one cell; smoothing spreads it around the ring
  return ring;
}

int run(int argc, char** argv) {
  Session session(argc, argv, "04_replay", "record an iteration once, replay it");
  int iterations = 500, chunks = 8, chunk_cells = 16;
  session.cli().add_option("--iterations", iterations)->check(CLI::PositiveNumber);
  session.start();
  Runtime& runtime = session.runtime();

  // The reference: every iteration submitted anew.
  Ring submitted = make_ring(runtime, chunks, chunk_cells);
  for (int it = 0; it < iterations; ++it) submit_iteration(runtime, submitted, chunk_cells);
  runtime.wait_all();

  // Recorded once: between begin_recording and end_recording, submissions become nodes of
  // a graph instead of running. The graph knows its dependencies within an iteration and
  // from one iteration to the next, exactly as submitting the tasks again would.
  Ring replayed = make_ring(runtime, chunks, chunk_cells);
  runtime.begin_recording();
  submit_iteration(runtime, replayed, chunk_cells);
  const IterationGraph graph = runtime.end_recording();
  // Runs iterations 0 .. iterations-1 and returns when all are done.
  runtime.replay(graph, 0, iterations);

  // Same tasks in the same dependency order: the same bits, whatever the thread count.
  const bool same = submitted.a == replayed.a;
  session.say(
      "04_replay: {} iterations of {} recorded tasks: a[0] {:.12f} submitted, {:.12f} "
      "replayed, {}",
      iterations, graph.size(), submitted.a[0], replayed.a[0], same ? "identical" : "DIFFERENT");
  session.finish({{"checksum", hex_bits(replayed.a[0])}});
  return same ? 0 : 1;
}

int main(int argc, char** argv) {
  return run_guarded([&] { return run(argc, argv); });
}
