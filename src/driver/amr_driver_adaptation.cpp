// AmrDriver's adaptation step (layer `driver`): the refinement criterion, 2:1-balanced
// marks, split and merge, families gathered onto one rank, and the repartition by block
// count or measured cost. The cycle loop is in amr_driver.cpp.
#include "tessera/driver/amr_driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "tessera/amr/carried_costs.hpp"
#include "tessera/amr/marking.hpp"
#include "tessera/mesh/weighted_split.hpp"

namespace tessera {
std::vector<std::int8_t> AmrDriver::criterion_marks() {
  AmrMesh& mesh = *mesh_;
  // Fresh ghosts of the state: the criterion's differences and the split's slopes read them.
  for (int g = 0; g < state_fields_; ++g) mesh.exchange(g);
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    std::vector<Access> acc;
    for (int g = 0; g < state_fields_; ++g) {
      acc.push_back(read(mesh.interior(b, g)));
      for (int a = 0; a < 3; ++a) acc.push_back(read(mesh.ghosts(b, g, a)));
    }
    std::int8_t* wish = &wishes_[static_cast<std::size_t>(b)];
    session_.runtime().submit("refinement", std::span<const Access>(acc),
                              [this, view = block(b), wish] {
                                *wish = static_cast<std::int8_t>(solver_.refinement(view));
                                if (derefinement_delay_)
                                  *wish = derefinement_delay_->delayed(view.index, *wish);
                              });
  }
  session_.exec().barrier();
  return balanced_marks(mesh.forest(), wishes_, options_.max_level);
}

std::int64_t AmrDriver::rebalance_by_cost() {
  const MPI_Comm comm = session_.comm().mpi();
  const CostSplit split = cost_balanced_split(comm, block_costs_, cost_window_.speed());
  std::int64_t moved = 0;
  if (split.current_time <= 0) {
    // Nothing measured (the initial refinement, a restart's first adaptation): by count.
    moved = mesh_->rebalance();
  } else if (split.worth_moving(options_.balance.gain)) {
    moved = mesh_->rebalance(split.counts);
  } else {
    return -1;  // the measured loads are balanced already (within --balance-gain)
  }
  block_costs_ = costs_of_rank(split.costs, mesh_->forest().global_offsets(), session_.rank());
  return moved;
}

std::int64_t AmrDriver::gather_families() {
  std::vector<std::int64_t> before;
  if (costs_)
    before.assign(mesh_->forest().global_offsets().begin(), mesh_->forest().global_offsets().end());
  const std::int64_t moved = mesh_->gather_families();
  if (costs_ && moved > 0)
    block_costs_ = costs_after_partition(session_.comm().mpi(), before,
                                         mesh_->forest().global_offsets(), block_costs_);
  return moved;
}

void AmrDriver::repartition_if_due(bool changed) {
  const Repartition when = options_.repartition;
  if (when == Repartition::never || (when == Repartition::on_change && !changed)) return;
  const MPI_Comm comm = session_.comm().mpi();
  int low = 0, high = 0, sum = 0;
  const auto count = [&] {
    int local = mesh_->local_block_count();
    MPI_Allreduce(&local, &low, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&local, &high, 1, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(&local, &sum, 1, MPI_INT, MPI_SUM, comm);
  };
  if (when != Repartition::on_change || options_.repartition_lines) count();
  // A cost balance repartitions whenever due: equal counts say nothing about equal loads.
  if (when != Repartition::on_change && !costs_ &&
      !(high > low + 1 &&
        static_cast<double>(high - low) * session_.size() / sum > options_.repartition_imbalance))
    return;
  const int mean = sum / session_.size();
  if (options_.repartition_lines) session_.say("before ave {} min {} max {}", mean, low, high);
  const std::int64_t moved = costs_ ? rebalance_by_cost() : mesh_->rebalance();
  if (moved < 0) return;
  moved_ += moved;
  ++repartitions_;
  cycle_graph_.reset();  // the recorded tasks refer to the old partition's plans
  if (!options_.repartition_lines) return;
  count();
  session_.say("after ave {} min {} max {}", mean, low, high);
}

bool AmrDriver::adapt_mesh(bool initial) {
  Exec& exec = session_.exec();
  AmrMesh& mesh = *mesh_;
  check_sums(static_cast<int>(sum_cycles_.size()));  // every pending sum first
  exec.begin_phase("adapt");
  if (costs_) {
    exec.barrier();  // no body adds to the table while it is read
    cost_window_ = costs_->close_window();
    // Each block's cost over the window in work units; from here it follows the block.
    for (std::size_t b = 0; b < block_costs_.size(); ++b)
      block_costs_[b] = b < cost_window_.seconds.size() ? cost_window_.normalized_cost(b) : 0.0;
  }
  const int passes =
      initial && !options_.initial_levels_from_problem ? options_.max_level : options_.adapt_passes;
  bool changed = false;
  for (int pass = 0; pass < passes && !failed_; ++pass) {
    // Families of siblings on one rank (a merge needs them); usually nothing moves.
    const std::int64_t gathered = gather_families();
    moved_ += gathered;
    if (gathered > 0) cycle_graph_.reset();  // new plans: record again
    blocks_changed();
    std::optional<std::vector<std::int8_t>> own = solver_.marks(*this);
    const std::vector<std::int8_t> marks = own ? std::move(*own) : criterion_marks();
    int change = 0;
    for (std::int8_t m : marks) change = change != 0 || m != 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &change, 1, MPI_INT, MPI_MAX, session_.comm().mpi());
    if (change != 0) {
      const AdaptCounts counts = mesh.adapt(marks);
      if (costs_)
        block_costs_ = costs_after_adapt(block_costs_, counts.sources, mesh.forest().children());
      split_ += counts.split;
      merged_ += counts.merged;
      changed = true;
      cycle_graph_.reset();  // the recorded tasks refer to the old mesh's plans
    }
    if (options_.repartition == Repartition::every_pass) repartition_if_due(change != 0);
  }
  if (changed) ++adaptations_;
  solver_.adapted(*this);
  repartition_if_due(changed);
  exec.barrier();
  // The memory check counted options_.block_slots; a run that needs more stops here.
  long long slots = mesh.max_local_blocks();
  MPI_Allreduce(MPI_IN_PLACE, &slots, 1, MPI_LONG_LONG, MPI_MAX, session_.comm().mpi());
  if (options_.block_slots > 0 && slots > options_.block_slots) {
    if (session_.rank() == 0)
      fmt::print(stderr,
                 "{}: error: {}: adaptation {} (cycle {}) needs {} block slots on a rank, more "
                 "than the {} the memory check counted; raise {} or lower {}\n",
                 session_.app(), options_.slots_option, adaptations_, cycle_, slots,
                 options_.block_slots, options_.slots_option, options_.max_level_option);
    failed_ = true;
  }
  if (!mesh.forest().is_face_balanced()) {
    fmt::print(stderr, "{}: error: the mesh is not 2:1 balanced after adaptation {}\n",
               session_.app(), adaptations_);
    unbalanced_ = true;
  }
  blocks_changed();
  exec.end_phase();
  return changed;
}

}  // namespace tessera
