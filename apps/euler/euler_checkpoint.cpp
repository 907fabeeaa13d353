#include "euler_checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "problems.hpp"
#include "tessera/restart.hpp"

namespace euler {

namespace {

// U's interior cells of a block: variable, then i, j, k with k fastest (the store's order).
void pack_u(const tessera::BlockShape& s, const double* block, double* out) {
  for (int v = 0; v < kVars; ++v)
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j) {
        const double* row = block + s.index(v, i + s.ghost[0], j + s.ghost[1], s.ghost[2]);
        out = std::copy(row, row + s.cells[2], out);
      }
}

void unpack_u(const tessera::BlockShape& s, const double* in, double* block) {
  for (int v = 0; v < kVars; ++v)
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j) {
        std::copy(in, in + s.cells[2],
                  block + s.index(v, i + s.ghost[0], j + s.ghost[1], s.ghost[2]));
        in += s.cells[2];
      }
}

}  // namespace

nlohmann::json problem_options(const Options& o) {
  return {{"--dim", o.dim},
          {"--cells", o.cells_raw},
          {"--block-cells", o.block_cells_raw},
          {"--max-level", o.max_level},
          {"--problem", o.problem_name},
          {"--axis", o.axis_name},
          {"--gamma", o.gamma},
          {"--cfl", o.cfl},
          {"--t-end", o.t_end},
          {"--reconstruct", o.reconstruct_name},
          {"--riemann", o.riemann_name},
          {"--boundary", o.boundary_name},
          {"--refine-above", o.refine_above},
          {"--derefine-below", o.derefine_below},
          {"--adapt-every", o.adapt_every},
          {"--blast-radius", o.blast_radius},
          {"--blast-pressure", o.blast_pressure},
          {"--blast-pressure-ratio", o.blast_pressure_ratio},
          {"--sedov-energy", o.sedov_energy},
          {"--sedov-pressure", o.sedov_pressure},
          {"--kh-density-contrast", o.kh_density_contrast}};
}

namespace {

void restore_problem_options(const nlohmann::json& j, Options& o) {
  j.at("--dim").get_to(o.dim);
  j.at("--cells").get_to(o.cells_raw);
  j.at("--block-cells").get_to(o.block_cells_raw);
  j.at("--max-level").get_to(o.max_level);
  j.at("--problem").get_to(o.problem_name);
  j.at("--axis").get_to(o.axis_name);
  j.at("--gamma").get_to(o.gamma);
  j.at("--cfl").get_to(o.cfl);
  j.at("--t-end").get_to(o.t_end);
  j.at("--reconstruct").get_to(o.reconstruct_name);
  j.at("--riemann").get_to(o.riemann_name);
  j.at("--boundary").get_to(o.boundary_name);
  j.at("--refine-above").get_to(o.refine_above);
  j.at("--derefine-below").get_to(o.derefine_below);
  j.at("--adapt-every").get_to(o.adapt_every);
  j.at("--blast-radius").get_to(o.blast_radius);
  j.at("--blast-pressure").get_to(o.blast_pressure);
  j.at("--blast-pressure-ratio").get_to(o.blast_pressure_ratio);
  j.at("--sedov-energy").get_to(o.sedov_energy);
  j.at("--sedov-pressure").get_to(o.sedov_pressure);
  j.at("--kh-density-contrast").get_to(o.kh_density_contrast);
}

}  // namespace

std::unique_ptr<tessera::CheckpointReader> open_restart(tessera::Session& session, Options& o) {
  return tessera::open_restart(
      session, o.checkpoint, "euler", problem_options(o),
      [&](const nlohmann::json& stored) { restore_problem_options(stored, o); });
}

EulerCheckpoint::EulerCheckpoint(tessera::Session& session, const Options& options,
                                 std::unique_ptr<tessera::CheckpointReader> restart)
    : session_(session), options_(options), reader_(std::move(restart)) {
  if (options.checkpoint.every > 0)
    writer_ = std::make_unique<tessera::CheckpointWriter>(session.comm(), options.checkpoint);
}

EulerCheckpoint::~EulerCheckpoint() = default;

void EulerCheckpoint::prepare_mesh(tessera::AmrMeshOptions& mo) {
  if (!reader_) return;
  try {
    for (const tessera::CheckpointPlace& p : reader_->read_places())
      mo.leaves.push_back({static_cast<int>(p[0]), {p[1], p[2], p[3]}});
  } catch (const tessera::CheckpointError& e) {
    session_.fail(e.option(), e.what());
  }
  if (static_cast<int>(reader_->written_partition().size()) == session_.size() + 1)
    mo.partition = reader_->written_partition();
}

DriverState EulerCheckpoint::restore(tessera::AmrMesh& mesh) {
  const auto start = std::chrono::steady_clock::now();
  DriverState state;
  try {
    const tessera::BlockShape& shape = mesh.shape();
    const std::size_t per_block = shape.interior_cells() * kVars;
    reader_->read_field("U", mesh.forest().global_offset(), mesh.local_count(), per_block,
                        [&](std::int64_t b, const double* u) {
                          unpack_u(shape, u, mesh.data(static_cast<std::int32_t>(b)));
                        });
    const tessera::CheckpointHeader& h = reader_->header();
    state.cycle = static_cast<int>(h.step);
    state.time = h.time;
    state.start_totals = h.state.at("start_totals");
    h.state.at("history").get_to(state.history);
    state.adapt_pending = h.state.value("adapt_pending", false);
  } catch (const tessera::CheckpointError& e) {
    session_.fail(e.option(), e.what());
  } catch (const nlohmann::json::exception& e) {
    session_.fail("--restart",
                  fmt::format("{}: the app state is incomplete: {}", reader_->file(), e.what()));
  }
  restored_.restarted_from = state.cycle;
  restored_.restore_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  restored_.read_s = reader_->read_seconds();
  restored_.read_phases_s = reader_->read_phase_seconds();
  session_.progress("euler: restarted from {} (cycle {}, t {:.6e}, {} blocks) on {} rank(s)",
                    reader_->file(), state.cycle, state.time, mesh.forest().global_count(),
                    session_.size());
  reader_.reset();
  return state;
}

void EulerCheckpoint::after_cycle(tessera::AmrMesh& mesh, const DriverState& state) {
  if (!writer_ || !options_.checkpoint.due(state.cycle)) return;
  tessera::CheckpointHeader header;
  header.app = "euler";
  header.problem = problem_options(options_);
  header.step = state.cycle;
  header.time = state.time;
  header.state = {{"start_totals", state.start_totals},
                  {"history", state.history},
                  {"adapt_pending", state.adapt_pending}};
  const tessera::Forest& forest = mesh.forest();
  tessera::CheckpointBlocks blocks;
  blocks.global_count = forest.global_count();
  blocks.first = forest.global_offset();
  for (std::int32_t b = 0; b < forest.local_count(); ++b) {
    const tessera::BlockPlace& p = forest.local(b);
    blocks.places.push_back({p.level, p.origin[0], p.origin[1], p.origin[2]});
  }
  tessera::AmrMesh* m = &mesh;
  tessera::CheckpointField u;
  u.name = "U";
  u.values_per_block = mesh.shape().interior_cells() * kVars;
  u.reads = [m](std::int32_t b, std::vector<tessera::Handle>& out) {
    out.push_back(m->interior(b, 0));
  };
  // The mesh only changes after every task is done, so block b is still block b.
  u.pack = [m](std::int32_t b, double* out) { pack_u(m->shape(), m->data(b), out); };
  writer_->submit(header, blocks, {u});
  session_.progress("euler: checkpoint of cycle {} submitted ({}/step-{})", state.cycle,
                    options_.checkpoint.dir, state.cycle);
}

void EulerCheckpoint::wait() {
  if (writer_) writer_->wait();
}

nlohmann::json EulerCheckpoint::report() const {
  return tessera::checkpoint_report(writer_.get(), restored_);
}

}  // namespace euler
