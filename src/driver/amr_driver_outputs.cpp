// What AmrDriver writes and reads back (layer `driver`): history rows, plot files,
// checkpoints, and the restart from one. The cycle loop is in amr_driver.cpp.
#include "tessera/driver/amr_driver.hpp"

#include <fmt/format.h>

#include <string>

#include "tessera/driver/mesh_checkpoint.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/io/plot_file.hpp"
#include "tessera/restart.hpp"

namespace tessera {
void AmrDriver::write_history_line(double dt) {
  session_.exec().barrier();
  std::string row = fmt::format("{},{:.17g},{:.17g}", cycle_, time_, dt);
  for (double v : totals().integral) row += fmt::format(",{:.17g}", v);
  history_ += fmt::format("{},{}\n", row, mesh_->forest().global_count());
}

void AmrDriver::write_output() {
  // The one place plot files are written: every checkpointed field's components.
  session_.exec().barrier();
  PlotOutput out;
  out.dir = options_.output_dir;
  out.prefix = options_.output_prefix;
  out.step = cycle_;
  out.time = time_;
  out.lo = options_.domain.lo;
  out.hi = options_.domain.hi;
  const int vars = mesh_->shape().group_size;
  for (int g = 0; g < state_fields_; ++g) {
    const FieldSpec& f = fields_[static_cast<std::size_t>(g)];
    for (int c = 0; c < f.components; ++c) {
      std::string name = f.components == 1 ? f.name : fmt::format("{}{}", f.name, c);
      if (static_cast<std::size_t>(c) < f.component_names.size())
        name = f.component_names[static_cast<std::size_t>(c)];
      out.variables.push_back({name, g * vars + c});
    }
  }
  const PlotFiles files = write_plot_file(*mesh_, out);
  session_.progress("{}: wrote {} ({} bytes of cell data in {:.3f} s)", session_.app(), files.data,
                    files.field_bytes, files.seconds);
}

void AmrDriver::restore() {
  const CheckpointRestore restored = restore_checkpoint(session_, *reader_, [&] {
    if (!options_.checkpoint_dataset.empty())
      read_checkpoint_cells(*reader_, *mesh_, options_.checkpoint_dataset, 0, state_fields_);
    for (int g = 0; g < state_fields_ && options_.checkpoint_dataset.empty(); ++g)
      read_checkpoint_cells(*reader_, *mesh_, fields_[static_cast<std::size_t>(g)].name, g, 1);
    const CheckpointHeader& h = reader_->header();
    cycle_ = static_cast<int>(h.step);
    time_ = h.time;
    h.state.at("history").get_to(history_);
    pending_adaptation_ = h.state.value("adapt_pending", false);
    adaptations_ = h.state.value("adaptations", 0);
    moved_ = h.state.value("blocks_moved", std::int64_t{0});
    repartitions_ = h.state.value("repartitions", 0);
    // Summed over ranks when written: one rank carries the totals on.
    const auto stored = [&](const std::map<std::string, std::int64_t>& m, const char* key) {
      const auto it = m.find(key);
      return it == m.end() ? std::int64_t{0} : it->second;
    };
    if (session_.rank() == 0) {
      split_ = stored(h.rank_sums, "blocks_split");
      merged_ = stored(h.rank_sums, "families_merged");
    }
    restored_max_blocks_ = stored(h.rank_maxima, "max_blocks");
    const nlohmann::json& t = h.state.at("start_totals");
    for (std::size_t v = 0; v + 1 < t.size(); ++v) start_.integral.push_back(t[v].get<double>());
    start_.checksum = t.back().get<double>();
    solver_.restore_state(h.state);
  });
  restarted_from_ = cycle_;
  read_seconds_ = restored.read_s;
  read_phases_ = restored.read_phases_s;
  restore_seconds_ = restored.restore_s;
  session_.progress("{}: restarted from {} (cycle {}, t {:.6e}, {} blocks) on {} rank(s)",
                    session_.app(), reader_->file(), cycle_, time_, mesh_->forest().global_count(),
                    session_.size());
  reader_.reset();
}

void AmrDriver::checkpoint_if_due(bool adapt_pending) {
  if (!writer_ || !options_.checkpoint.due(cycle_)) return;
  check_sums(static_cast<int>(sum_cycles_.size()));  // the solver's state is final then
  CheckpointHeader header;
  header.state = solver_.checkpoint_state();
  if (failed_) return;
  header.app = session_.app();
  header.problem = options_.problem;
  header.step = cycle_;
  header.time = time_;
  header.state["adaptations"] = adaptations_;
  header.state["blocks_moved"] = moved_;
  header.state["repartitions"] = repartitions_;
  header.rank_sums = {{"blocks_split", split_}, {"families_merged", merged_}};
  header.rank_maxima = {
      {"max_blocks", std::max<std::int64_t>(mesh_->max_local_blocks(), restored_max_blocks_)}};
  nlohmann::json start_totals(start_.integral);
  start_totals.push_back(start_.checksum);
  header.state["start_totals"] = start_totals;
  header.state["history"] = history_;
  header.state["adapt_pending"] = adapt_pending;
  std::vector<CheckpointField> fields;
  if (!options_.checkpoint_dataset.empty())
    fields.push_back(checkpoint_cells(*mesh_, options_.checkpoint_dataset, 0, state_fields_));
  for (int g = 0; g < state_fields_ && options_.checkpoint_dataset.empty(); ++g)
    fields.push_back(checkpoint_cells(*mesh_, fields_[static_cast<std::size_t>(g)].name, g, 1));
  writer_->submit(header, checkpoint_blocks(mesh_->forest()), fields);
  session_.progress("{}: checkpoint of cycle {} submitted ({}/step-{})", session_.app(), cycle_,
                    options_.checkpoint.dir, cycle_);
}

}  // namespace tessera
