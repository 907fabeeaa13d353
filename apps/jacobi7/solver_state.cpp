// jacobi7's Solver, its state saved and taken over: checkpoints of u and the check
// history, the restart from one, and continuing from a solver on another partition of the
// blocks after a repartition.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "solver.hpp"
#include "tessera/mesh/block_migration.hpp"
#include "tessera/option_registry.hpp"

namespace tessera::jacobi7 {
namespace {

// The copies of each block's first and last column that x neighbours read (FaceSources),
// from the field itself: after a restart has set u directly.
void copy_columns(const BlockField& field, const std::vector<FaceSources>& faces) {
  const BlockLayout& layout = field.layout();
  const Int3 n = layout.cells();
  for (LocalBlockIndex b = 0; b < static_cast<LocalBlockIndex>(faces.size()); ++b)
    for (int side = 0; side < 2; ++side) {
      double* copy = faces[b].own_column[side];
      if (!copy) continue;
      for (int k = 0; k < n.z; ++k)
        for (int j = 0; j < n.y; ++j)
          copy[std::ptrdiff_t{k} * n.y + j] =
              field.data(b)[layout.index(0, side == 0 ? 0 : n.x - 1, j, k)];
    }
}

}  // namespace

void Solver::restore(CheckpointReader& reader) {
  // No task has been submitted yet: the main thread owns the blocks.
  const Int3 n = u_.layout().cells();
  reader.read_field(
      "u", mesh_.local_block_count() > 0 ? mesh_.local_block(0).curve_index : 0,
      mesh_.local_block_count(), cells_per_block(), [&](std::int64_t b, const double* in) {
        for (int k = 0; k < n.z; ++k)
          for (int j = 0; j < n.y; ++j) {
            std::copy(in, in + n.x,
                      u_.data(static_cast<LocalBlockIndex>(b)) + u_.layout().index(0, 0, j, k));
            in += n.x;
          }
      });
  copy_columns(u_, u_faces_);
  for (const auto& c : reader.header().state.at("history"))
    history_.push_back({c.at("iteration").get<int>(), c.at("residual").get<double>(),
                        c.at("error").get<double>()});
  first_iteration_ = static_cast<int>(reader.header().step);
}

// The state after `step` iterations: u's interior per block, in Morton curve order, and
// the validated checks (the check in flight is validated first so that the history is
// complete). The copies are tasks reading u: they run after the last sweep writing it
// and before the next sweep overwriting it, while the sweep reading it goes on.
void Solver::submit_checkpoint(int step) {
  Exec& exec = session_.exec();
  exec.begin_phase("checkpoint");
  if (checks_submitted_ > 0) validate(checks_[(checks_submitted_ - 1) % 2]);
  CheckpointHeader header;
  header.app = "jacobi7";
  header.problem = session_.option_registry().problem();
  header.step = step;
  header.time = step;
  header.state = {{"history", history_json(history_)}};
  CheckpointBlocks blocks;
  blocks.global_count = mesh_.global_block_count();
  blocks.first = mesh_.local_block_count() > 0 ? mesh_.local_block(0).curve_index : 0;
  for (const MeshBlock& b : mesh_.local_blocks())
    blocks.places.push_back({0, b.coord.x, b.coord.y, b.coord.z});
  const BlockField* u = u_now_;
  CheckpointField field;
  field.name = "u";
  field.values_per_block = cells_per_block();
  field.reads = [u](std::int32_t b, std::vector<Handle>& out) { out.push_back(u->interior(b)); };
  field.pack = [u](std::int32_t b, double* out) {
    const Int3 n = u->layout().cells();
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j) {
        const double* row = u->data(b) + u->layout().index(0, 0, j, k);
        out = std::copy(row, row + n.x, out);
      }
  };
  writer_->submit(header, blocks, {field});
  session_.progress("jacobi7: checkpoint of iteration {} submitted ({}/step-{})", step,
                    options_.checkpoint.dir, step);
  exec.end_phase();
}

std::int64_t Solver::continue_from(Solver& previous, const TagSpace& tags) {
  std::int64_t sent = 0;
  {
    const BlockMigration migration(session_.comm(), *previous.u_now_, u_, tags);
    sent = migration.blocks_sent();
    session_.runtime().wait_all();
  }
  copy_columns(u_, u_faces_);
  history_ = previous.history_;
  first_iteration_ = previous.first_iteration_;
  return sent;
}

}  // namespace tessera::jacobi7
