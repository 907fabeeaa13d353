// 03_heat1d: the 1-D heat equation u_t = u_xx on [0, 1], u = 0 at both ends, in explicit
// steps. The cells are split over the ranks, each rank's part into chunks (one task per
// chunk and step); communication tasks fill the ghost cell at each end of a rank's part.
// Every cell gets the same arithmetic wherever it runs: the checksum is the same bits for
// any ranks, threads and --exec model.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

// One copy of this rank's cells, u[1..n], with ghosts u[0] and u[n + 1], and its handles:
// one per chunk (the unit of work) and one per ghost (the unit of communication).
struct Grid {
  std::vector<double> u;
  std::vector<Handle> chunk;
  Handle left, right;
};

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
  // Two grids, written alternately: a step reads one and writes the other. Both start from
  // sin(pi x) at the cell centres; ghosts outside [0, 1] stay 0, the boundary condition.
  Grid grids[2];
  for (Grid& g : grids) {
    g.u.assign(n + 2, 0.0);
    for (long i = 1; i <= n; ++i) g.u[i] = std::sin(std::numbers::pi * (first + i - 0.5) / cells);
    for (long c = 0; c < chunks; ++c) g.chunk.push_back(runtime.create_handle("chunk"));
    g.left = runtime.create_handle("left ghost");
    g.right = runtime.create_handle("right ghost");
  }
  // Tags are reserved in the same order on every rank, so sender and receiver agree.
  const TagSpace tags = comm.allocate_tags("heat1d halo", 2);
  const int to_left = tags.tag(0), to_right = tags.tag(1);
  const double r = 0.25;  // dt / dx^2; explicit steps are stable up to 0.5
  for (long step = 0; step < steps; ++step) {
    Grid& in = grids[step % 2];
    Grid& out = grids[(step + 1) % 2];
    // Halo: send my end cells, receive my neighbours' into my ghosts. Sends read a chunk,
    // receives write a ghost, so only the chunk updates next to a ghost wait for the network.
    if (rank > 0) {
      comm.isend(in.chunk.front(), &in.u[1], sizeof(double), rank - 1, to_left);
      comm.irecv(in.left, &in.u[0], sizeof(double), rank - 1, to_right);
    }
    if (rank < ranks - 1) {
      comm.isend(in.chunk.back(), &in.u[n], sizeof(double), rank + 1, to_right);
      comm.irecv(in.right, &in.u[n + 1], sizeof(double), rank + 1, to_left);
    }
    session.exec().end_phase();  // forkjoin's barrier; bsp and dataflow go straight on
    for (long c = 0; c < chunks; ++c) {
      // A chunk's update reads its own cells and one cell on each side: those lie in the
      // neighbouring chunks or, at the ends, in the ghosts.
      const Handle before = c > 0 ? in.chunk[c - 1] : in.left;
      const Handle after = c < chunks - 1 ? in.chunk[c + 1] : in.right;
      const long lo = 1 + c * chunk_cells, hi = std::min(n, lo + chunk_cells - 1);
      runtime.submit("update", {read(before), read(in.chunk[c]), read(after), write(out.chunk[c])},
                     [u = in.u.data(), v = out.u.data(), lo, hi, r] {
                       for (long i = lo; i <= hi; ++i)
                         v[i] = u[i] + r * (u[i - 1] - 2 * u[i] + u[i + 1]);
                     });
    }
    session.exec().end_phase();
  }
  // The checksum: the exact sum of all cells over all ranks (see 02_reduction), once every
  // update is done. iallreduce_sum is a task too; wait_for waits for its result only.
  runtime.wait_all();
  ExactSum sum;
  for (long i = 1; i <= n; ++i) sum.add(grids[steps % 2].u[i]);
  const Handle h = runtime.create_handle("checksum");
  comm.iallreduce_sum(h, &sum);
  runtime.wait_for(h);
  // sin(pi x) decays as exp(-pi^2 t): its integral, 2/pi at t = 0, shows the physics works.
  const double t = steps * r / (double(cells) * cells);
  session.say("03_heat1d: {} cells, {} steps: heat {:.6f}, exact solution {:.6f}", cells, steps,
              sum.value() / cells,
              2 / std::numbers::pi * std::exp(-std::numbers::pi * std::numbers::pi * t));
  session.finish({{"checksum", hex_bits(sum.value())}});
  return 0;
}

int main(int argc, char** argv) {
  return run_guarded([&] { return run(argc, argv); });
}
