// jacobi7's iteration loop with cost-balanced repartitioning (--balance cost): iterate to
// the next balance point, split the blocks by measured cost, move when the gain pays.

#include "cost_balance.hpp"

#include <mpi.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "tessera/balance_options.hpp"
#include "tessera/mesh/weighted_split.hpp"
#include "tessera/runtime/cost_table.hpp"

namespace tessera::jacobi7 {

SolveOutcome solve_with_balance(Session& session, const Options& options, Int3 blocks, Int3 cells,
                                int first, CheckpointWriter* writer,
                                std::unique_ptr<UniformMesh>& mesh,
                                std::unique_ptr<Solver>& solver) {
  // --balance cost: the sweeps' measured time per block decides the next partition.
  const BalanceOptions& balance = options.balance;
  CostTable costs(session.runtime().threads(), static_cast<std::size_t>(mesh->local_block_count()));
  if (balance.cost()) session.runtime().set_cost_table(&costs);
  const TagSpace migration_tags = session.comm().allocate_tags("migration", 1);
  SolveOutcome outcome;
  solver->setup();
  MPI_Barrier(MPI_COMM_WORLD);
  // MPI's clock: simulated time when the run is simulated with SimGrid SMPI.
  const double start = MPI_Wtime();
  int next_balance = balance.cost() ? first + balance.after : options.iters;
  int done_until = first;
  while (done_until < options.iters) {
    const int stop = std::min(next_balance, options.iters);
    solver->iterate_until(stop);
    done_until = stop;
    if (stop >= options.iters) break;
    next_balance = stop + balance.every;
    // Every task is done: the window holds the sweeps since the last repartition.
    const CostWindow window = costs.close_window();
    const CostSplit split = cost_balanced_split(
        MPI_COMM_WORLD, window, static_cast<std::size_t>(mesh->local_block_count()));
    // A move costs a solver's set-up and the messages: only for a predicted gain.
    if (!split.worth_moving(balance.gain)) continue;
    ++outcome.repartitions;
    const std::vector<std::int64_t>& counts = split.counts;
    session.runtime().set_cost_table(nullptr);
    auto next_mesh = std::make_unique<UniformMesh>(blocks, cells, options.time_tile, session.rank(),
                                                   session.size(), Periodicity{}, counts);
    auto next = std::make_unique<Solver>(session, options, *next_mesh, writer);
    next->setup();
    long long moved = next->continue_from(*solver, migration_tags);
    MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    outcome.blocks_moved += moved;
    solver = std::move(next);
    mesh = std::move(next_mesh);
    costs.reset(static_cast<std::size_t>(mesh->local_block_count()));
    session.runtime().set_cost_table(&costs);
  }
  outcome.solve_s = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &outcome.solve_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  session.runtime().set_cost_table(nullptr);
  return outcome;
}

}  // namespace tessera::jacobi7
