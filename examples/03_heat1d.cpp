// 03_heat1d: the 1-D heat equation u_t = u_xx on [0, 1], u = 0 at both ends. Each rank owns
// a range of cells cut into chunks (one task per chunk and step); communication tasks fill a
// ghost cell at each end. The checksum has the same bits for any ranks, threads and --exec.
#include <CLI/CLI.hpp>  // Session::cli() is a CLI11 parser: add options with its API
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

int run(int argc, char** argv) {
  Session session(argc, argv, "03_heat1d", "1-D heat equation split over ranks");
  long cells = 256, steps = 1000, chunk_cells = 32;
  session.cli().add_option("--cells", cells)->check(CLI::PositiveNumber);
  session.cli().add_option("--steps", steps)->check(CLI::NonNegativeNumber);
  session.cli().add_option("--chunk", chunk_cells, "cells per task")->check(CLI::PositiveNumber);
  session.start();  // parses and validates the options on every rank
  if (cells < session.size()) session.fail("--cells", "needs at least one cell per rank");
  Runtime& runtime = session.runtime();
  Comm& comm = session.comm();
  const int rank = session.rank(), ranks = session.size();
  // Rank r owns global cells [first, first + n): a balanced split for any rank count.
  const long first = cells * rank / ranks, n = cells * (rank + 1) / ranks - first;
  const long chunks = (n + chunk_cells - 1) / chunk_cells;
  // Cells u[1..n], ghosts u[0] and u[n + 1] (0 outside [0, 1]), twice: a step reads one copy,
  // writes the other. A handle per chunk in h[1..chunks], per ghost in h[0], h[chunks + 1].
  std::vector<double> u[2];
  std::vector<Handle> h[2];
  for (int k = 0; k < 2; ++k) {
    u[k].assign(n + 2, 0.0);
    for (long i = 1; i <= n; ++i) u[k][i] = std::sin(std::numbers::pi * (first + i - 0.5) / cells);
    for (long c = 0; c <= chunks + 1; ++c)
      h[k].push_back(runtime.create_handle(c == 0 || c == chunks + 1 ? "ghost" : "chunk"));
  }
  // Tags are reserved in the same order on every rank, so sender and receiver agree.
  const TagSpace tags = comm.allocate_tags("heat1d halo", 2);
  const int to_left = tags.tag(0), to_right = tags.tag(1);
  const double r = 0.25;  // dt / dx^2; explicit steps are stable up to 0.5
  for (long step = 0; step < steps; ++step) {
    const int in = step % 2, out = 1 - in;
    // Halo: sends read end chunks, receives write ghosts; only updates next to a ghost wait.
    if (rank > 0) {
      comm.isend(h[in][1], &u[in][1], sizeof(double), rank - 1, to_left);
      comm.irecv(h[in][0], &u[in][0], sizeof(double), rank - 1, to_right);
    }
    if (rank < ranks - 1) {
      comm.isend(h[in][chunks], &u[in][n], sizeof(double), rank + 1, to_right);
      comm.irecv(h[in][chunks + 1], &u[in][n + 1], sizeof(double), rank + 1, to_left);
    }
    session.exec().end_phase();  // forkjoin's barrier; bsp and dataflow go straight on
    for (long c = 1; c <= chunks; ++c) {
      // Chunk c also reads the cell beyond each end: chunk c - 1 and c + 1 (or a ghost).
      const long lo = 1 + (c - 1) * chunk_cells, hi = std::min(n, lo + chunk_cells - 1);
      runtime.submit("update",
                     {read(h[in][c - 1]), read(h[in][c]), read(h[in][c + 1]), write(h[out][c])},
                     [a = u[in].data(), b = u[out].data(), lo, hi, r] {
                       for (long i = lo; i <= hi; ++i)
                         b[i] = a[i] + r * (a[i - 1] - 2 * a[i] + a[i + 1]);
                     });
    }
    session.exec().end_phase();
  }
  // Checksum: the exact sum over all ranks (02_reduction); a task too, so wait for it.
  runtime.wait_all();
  ExactSum sum;
  for (long i = 1; i <= n; ++i) sum.add(u[steps % 2][i]);
  const Handle total = runtime.create_handle("checksum");
  comm.iallreduce_sum(total, &sum);
  runtime.wait_for(total);
  // sin(pi x) decays as exp(-pi^2 t): its mean, 2/pi at t = 0, shows the physics works.
  const double t = steps * r / (double(cells) * cells), pi = std::numbers::pi;
  session.say("03_heat1d: {} cells, {} steps: heat {:.6f}, exact solution {:.6f}", cells, steps,
              sum.value() / cells, 2 / pi * std::exp(-pi * pi * t));
  session.finish({{"checksum", hex_bits(sum.value())}});
  return 0;
}

int main(int argc, char** argv) {
  return run_guarded([&] { return run(argc, argv); });
}
