#include "driver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "stencil.hpp"
#include "tessera/amr/marking.hpp"
#include "tessera/amr/vtk.hpp"
#include "tessera/driver/mesh_checkpoint.hpp"

namespace miniamr {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Initial value of variable v in the level-0 cell (x, y, z) of the global grid: uniform
// in [0, 1), a function of the position only (miniAMR uses rand(), which depends on ranks).
double initial_value(std::int64_t x, std::int64_t y, std::int64_t z, int v) {
  const std::uint64_t h =
      mix(mix(mix(mix(static_cast<std::uint64_t>(v)) ^ static_cast<std::uint64_t>(x)) ^
              static_cast<std::uint64_t>(y)) ^
          static_cast<std::uint64_t>(z));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

void fill_initial(const tessera::BlockShape& s, const tessera::BlockPlace& place, double* block) {
  const tessera::BlockLayout l = s.layout();
  std::int64_t base[3];
  for (int a = 0; a < 3; ++a) base[a] = place.origin[a] / place.length() * s.cells[a];
  for (int v = 0; v < s.num_vars; ++v)
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k)
          block[l.index(v, i, j, k)] = initial_value(base[0] + i, base[1] + j, base[2] + k, v);
}

nlohmann::json object_json(const tessera::RefineObject& o) {
  return {{"type", o.type}, {"bounce", o.bounce}, {"center", o.center},
          {"move", o.move}, {"size", o.size},     {"growth", o.growth}};
}

tessera::RefineObject object_from(const nlohmann::json& j) {
  tessera::RefineObject o;
  j.at("type").get_to(o.type);
  j.at("bounce").get_to(o.bounce);
  j.at("center").get_to(o.center);
  j.at("move").get_to(o.move);
  j.at("size").get_to(o.size);
  j.at("growth").get_to(o.growth);
  return o;
}

}  // namespace

Driver::Driver(tessera::Session& session, const Options& options, nlohmann::json problem,
               tessera::CheckpointReader* restart)
    : session_(session),
      options_(options),
      problem_(std::move(problem)),
      restart_(restart),
      objects_(options.objects) {}

Driver::~Driver() = default;

void Driver::initialize() {
  tessera::Exec& exec = session_.exec();
  // Made now: its constructor is a blocking collective, unsafe once messages fly.
  if (options_.checkpoint.every > 0)
    writer_ = std::make_unique<tessera::CheckpointWriter>(session_.comm(), options_.checkpoint);
  exec.begin_phase("init");
  tessera::AmrMeshOptions mo;
  mo.root_blocks = options_.root_blocks();
  mo.shape.cells = options_.block_cells;
  mo.shape.num_vars = options_.num_vars;
  mo.shape.group_size = options_.variables_per_group();
  mo.shape.row_alignment = 1;  // small blocks: cache-line rows would add 60 % to 8^3 cells
  mo.halo.corners = options_.stencil == 27;
  mo.halo.send_faces = options_.send_faces;
  mo.halo.max_comm_tasks = options_.max_comm_tasks;
  mo.halo.separate_buffers = options_.separate_buffers;
  if (restart_ != nullptr) {
    restore(std::move(mo));
    exec.end_phase();
    return;
  }
  mesh_ = std::make_unique<tessera::AmrMesh>(session_.comm(), exec, mo);
  checksums_ = std::make_unique<Checksums>(session_.comm(), options_.num_vars);

  tessera::AmrMesh& mesh = *mesh_;
  const tessera::BlockShape& shape = mesh.shape();
  std::vector<tessera::Access> acc;
  for (tessera::LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    acc.clear();
    for (int g = 0; g < shape.groups(); ++g) acc.push_back(write(mesh.interior(b, g)));
    double* block = mesh.data(b);
    const tessera::BlockPlace place = mesh.place(b);
    session_.runtime().submit("init_block", std::span<const tessera::Access>(acc),
                              [&shape, place, block] { fill_initial(shape, place, block); });
  }
  // Round 0: the reference sums every later checksum is compared with (miniAMR takes them
  // at the end of initialization, before the first refinement).
  checksums_->begin_round(0, mesh, SumKind::plain);
  for (int g = 0; g < shape.groups(); ++g) checksums_->submit_group(mesh, g);
  checksums_->end_round();
  round_timestep_.push_back(0);
  next_round_ = 1;
  const auto& sums = checksums_->wait(0);
  reference_sums_.clear();
  for (const auto& s : sums) reference_sums_.push_back(s.value());
  validated_rounds_ = 1;
  exec.end_phase();
}

// Rebuilds the mesh from the checkpoint's block list (same partition on as many ranks as
// wrote it, an equal split otherwise), loads the cells and the driver's state.
void Driver::restore(tessera::AmrMeshOptions mo) {
  tessera::CheckpointReader& reader = *restart_;
  const auto read_start = Clock::now();
  try {
    tessera::restart_leaves(reader, session_.size(), mo);
    mesh_ = std::make_unique<tessera::AmrMesh>(session_.comm(), session_.exec(), mo);
    checksums_ = std::make_unique<Checksums>(session_.comm(), options_.num_vars);
    tessera::AmrMesh& mesh = *mesh_;
    // No task has been submitted yet: the main thread owns every block.
    tessera::read_checkpoint_cells(reader, mesh, "cells", 0, mesh.shape().groups());

    const tessera::CheckpointHeader& h = reader.header();
    const nlohmann::json& st = h.state;
    st.at("reference_sums").get_to(reference_sums_);
    st.at("next_round").get_to(next_round_);
    st.at("validated_rounds").get_to(validated_rounds_);
    st.at("round_timestep").get_to(round_timestep_);
    objects_.clear();
    for (const auto& o : st.at("objects")) objects_.push_back(object_from(o));
    st.at("blocks_per_step").get_to(totals_.blocks_per_step);
    for (const auto& r : st.at("refinements"))
      totals_.refinements.push_back({r.at("timestep").get<int>(),
                                     r.at("levels").get<std::vector<std::int64_t>>(),
                                     r.at("total").get<std::int64_t>()});
    st.at("total_blocks").get_to(totals_.total_blocks);
    st.at("flops").get_to(totals_.flops);
    st.at("moved").get_to(totals_.moved);
    st.at("refine_steps").get_to(totals_.refine_steps);
    st.at("balance_steps").get_to(totals_.balance_steps);
    st.at("checksums").get_to(totals_.checksums);
    st.at("timesteps_done").get_to(totals_.timesteps_done);
    // Summed over ranks when written: one rank carries the total on.
    if (session_.rank() == 0) {
      totals_.splits = h.rank_sums.at("splits");
      totals_.merges = h.rank_sums.at("merges");
    }
    restored_max_blocks_ = static_cast<std::int32_t>(h.rank_maxima.at("max_blocks"));
    totals_.restarted_from = static_cast<int>(h.step);
  } catch (const tessera::CheckpointError& e) {
    session_.fail(e.option(), e.what());
  } catch (const std::exception& e) {
    // Same file on every rank, so the same verdict everywhere.
    session_.fail("--restart",
                  fmt::format("{}: the app state is incomplete: {}", reader.file(), e.what()));
  }
  totals_.checkpoint_restore_seconds = seconds_since(read_start);
  totals_.checkpoint_read_seconds = reader.read_seconds();
  totals_.checkpoint_read_phases = reader.read_phase_seconds();
  session_.progress("miniamr: restarted from {} (timestep {}, {} blocks) on {} rank(s)",
                    reader.file(), totals_.restarted_from, mesh_->forest().global_count(),
                    session_.size());
}

nlohmann::json Driver::state() const {
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& o : objects_) objects.push_back(object_json(o));
  nlohmann::json refinements = nlohmann::json::array();
  for (const auto& r : totals_.refinements)
    refinements.push_back({{"timestep", r.timestep}, {"levels", r.levels}, {"total", r.total}});
  return {{"reference_sums", reference_sums_},
          {"next_round", next_round_},
          {"validated_rounds", validated_rounds_},
          {"round_timestep", round_timestep_},
          {"objects", objects},
          {"blocks_per_step", totals_.blocks_per_step},
          {"refinements", refinements},
          {"total_blocks", totals_.total_blocks},
          {"flops", totals_.flops},
          {"moved", totals_.moved},
          {"refine_steps", totals_.refine_steps},
          {"balance_steps", totals_.balance_steps},
          {"checksums", totals_.checksums},
          {"timesteps_done", totals_.timesteps_done}};
}

// The state after timestep ts. Pending checksums are validated first so that the stored
// reference sums are final; the cells are copied by tasks ordered after the timestep's
// last stencil and before the next one (CheckpointWriter).
void Driver::write_checkpoint(int ts) {
  tessera::Exec& exec = session_.exec();
  exec.begin_phase("checkpoint");
  validate_all_pending();
  if (!stop_) {
    tessera::CheckpointHeader header;
    header.app = "miniamr";
    header.problem = problem_;
    header.step = ts;
    header.time = static_cast<double>(ts);
    header.state = state();
    header.rank_sums = {{"splits", totals_.splits}, {"merges", totals_.merges}};
    header.rank_maxima = {
        {"max_blocks", std::max(mesh_->max_local_blocks(), restored_max_blocks_)}};
    writer_->submit(header, tessera::checkpoint_blocks(mesh_->forest()),
                    {tessera::checkpoint_cells(*mesh_, "cells", 0, mesh_->shape().groups())});
    session_.progress("miniamr: checkpoint of timestep {} submitted ({}/step-{})", ts,
                      options_.checkpoint.dir, ts);
  }
  exec.end_phase();
}

void Driver::stage(int ts, int stage_index) {
  tessera::Exec& exec = session_.exec();
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = *mesh_;
  const tessera::BlockShape& shape = mesh.shape();
  const std::int64_t blocks = mesh.forest().global_count();
  totals_.total_blocks += blocks;
  totals_.flops += static_cast<double>(blocks) * static_cast<double>(shape.interior_cells()) *
                   options_.num_vars * stencil_flops(options_.stencil);
  const bool checksum = options_.checksum_freq > 0 && stage_index % options_.checksum_freq == 0;
  if (checksum) checksums_->begin_round(next_round_, mesh, SumKind::plain);
  const int points = options_.stencil;
  for (int g = 0; g < shape.groups(); ++g) {
    exec.begin_phase("halo");
    mesh.exchange(g);
    exec.end_phase();

    exec.begin_phase("stencil");
    const int first = shape.group_first(g), vars = shape.group_vars(g);
    for (tessera::LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      double* block = mesh.data(b);
      runtime.submit(
          "stencil",
          {read(mesh.ghosts(b, g, 0)), read(mesh.ghosts(b, g, 1)), read(mesh.ghosts(b, g, 2)),
           readwrite(mesh.interior(b, g))},
          [&shape, points, block, first, vars] {
            apply_stencil(shape, points, block, first, vars);
          },
          mesh.is_skeleton(b) ? exec.skeleton_priority() : tessera::Priority::normal);
    }
    exec.end_phase();

    if (checksum) {
      exec.begin_phase("checksum");
      checksums_->submit_group(mesh, g);
      exec.end_phase();
    }
  }
  if (checksum) {
    exec.begin_phase("checksum");
    checksums_->end_round();
    round_timestep_.push_back(ts);
    ++next_round_;
    ++totals_.checksums;
    // Delayed validation: wait for the previous checksum, not for this stage.
    if (next_round_ - 2 >= validated_rounds_) validate(next_round_ - 2);
    exec.end_phase();
  }
}

void Driver::validate(int r) {
  const auto& sums = checksums_->wait(r);
  const double tol = std::pow(10.0, -options_.error_tol);
  for (int v = 0; v < options_.num_vars; ++v) {
    const double sum = sums[static_cast<std::size_t>(v)].value();
    const double old = reference_sums_[static_cast<std::size_t>(v)];
    const double diff = std::fabs(sum - old);
    const double rel = diff / old;
    if (options_.report_diffusion)
      session_.say("{} var {} sum {} old {} diff {} {} tol {}",
                   round_timestep_[static_cast<std::size_t>(r)], v, sum, old, diff, rel, tol);
    if (!(rel <= tol) && !stop_) {
      session_.say("Time step {} sum {} (old {}) variable {} difference too large",
                   round_timestep_[static_cast<std::size_t>(r)], sum, old, v);
      session_.say(
          "miniamr: checksum validation failed (relative difference {} > --error_tol "
          "10^-{}); stopping",
          rel, options_.error_tol);
      totals_.validation_failed = true;
      stop_ = true;
    }
    reference_sums_[static_cast<std::size_t>(v)] = sum;
  }
  validated_rounds_ = r + 1;
}

void Driver::validate_all_pending() {
  while (validated_rounds_ < next_round_) validate(validated_rounds_);
}

bool Driver::maybe_rebalance() {
  if (options_.lb_opt == 0 || options_.uniform_refine != 0) return false;
  // Blocking collectives on the main thread, in the refinement phase: every rank reaches
  // them in the same order, and no task depends on them.
  const MPI_Comm comm = session_.comm().mpi();
  int local = mesh_->local_block_count();
  int min_b = 0, max_b = 0, sum_b = 0;
  MPI_Allreduce(&local, &min_b, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&local, &max_b, 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(&local, &sum_b, 1, MPI_INT, MPI_SUM, comm);
  const int ranks = session_.size();
  const double ratio = static_cast<double>(max_b - min_b) * ranks / static_cast<double>(sum_b);
  if (!(max_b > min_b + 1 && ratio > options_.inbalance / 100.0)) return false;
  const bool verbose = (options_.report_perf & 8) != 0;
  if (verbose) session_.say("before ave {} min {} max {}", sum_b / ranks, min_b, max_b);
  session_.exec().begin_phase("balance");
  totals_.moved += mesh_->rebalance();
  ++totals_.balance_steps;
  session_.exec().end_phase();
  local = mesh_->local_block_count();
  MPI_Allreduce(&local, &min_b, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&local, &max_b, 1, MPI_INT, MPI_MAX, comm);
  if (verbose) session_.say("after ave {} min {} max {}", sum_b / ranks, min_b, max_b);
  return true;
}

void Driver::refine_step(int ts) {
  tessera::Exec& exec = session_.exec();
  exec.begin_phase("refine");
  exec.barrier();
  validate_all_pending();
  ++totals_.refine_steps;
  const int iterations = ts == 0 ? options_.num_refine : options_.refine_iterations_later();
  std::vector<std::uint8_t> hit;
  for (int it = 0; it < iterations; ++it) {
    // A merge may have completed a family whose siblings live on another rank.
    totals_.moved += mesh_->gather_families();
    const tessera::Forest& forest = mesh_->forest();
    hit.assign(static_cast<std::size_t>(forest.local_count()), 0);
    for (std::int32_t b = 0; b < forest.local_count(); ++b) {
      const tessera::BlockPlace& p = forest.local(b);
      hit[static_cast<std::size_t>(b)] =
          options_.uniform_refine != 0 ? p.level < options_.num_refine
                                       : tessera::objects_intersect(objects_, forest.unit_box(p));
    }
    const std::vector<std::int8_t> marks =
        tessera::refinement_marks(forest, hit, options_.num_refine);
    const tessera::AdaptCounts counts = mesh_->adapt(marks);
    totals_.splits += counts.split;
    totals_.merges += counts.merged;
    if (options_.lb_opt == 2) {
      exec.end_phase();
      maybe_rebalance();
      exec.begin_phase("refine");
    }
  }
  RefinementRecord record;
  record.timestep = ts;
  record.levels = mesh_->forest().global_level_counts(options_.num_refine);
  for (std::int64_t n : record.levels) record.total += n;
  if ((options_.report_perf & 8) != 0) {
    for (std::size_t l = 0; l < record.levels.size(); ++l)
      session_.say("Number of blocks at level {} at timestep {} is {}", l, ts, record.levels[l]);
    session_.say("Total number of blocks at timestep {} is {}", ts, record.total);
  }
  totals_.refinements.push_back(std::move(record));
  exec.end_phase();
  maybe_rebalance();

  const std::int64_t capacity = static_cast<std::int64_t>(options_.max_blocks) *
                                options_.rank_grid[0] * options_.rank_grid[1] *
                                options_.rank_grid[2];
  if (mesh_->forest().global_count() > capacity) {
    session_.say(
        "ERROR: Need more blocks: the mesh has {} blocks, more than --max_blocks {} x "
        "{} miniAMR ranks = {}",
        mesh_->forest().global_count(), options_.max_blocks,
        options_.rank_grid[0] * options_.rank_grid[1] * options_.rank_grid[2], capacity);
    stop_ = true;
  }
}

void Driver::plot(int ts) {
  session_.exec().begin_phase("plot");
  const std::string path = fmt::format("{}_ts{:04d}.vtk", options_.plot_prefix, ts);
  tessera::write_forest_vtk(mesh_->forest(), path);
  session_.progress("miniamr: mesh written to {}", path);
  session_.exec().end_phase();
}

void Driver::final_checksum() {
  tessera::AmrMesh& mesh = *mesh_;
  checksums_->begin_round(next_round_, mesh, SumKind::weighted);
  for (int g = 0; g < mesh.shape().groups(); ++g) checksums_->submit_group(mesh, g);
  checksums_->end_round();
  const auto& sums = checksums_->wait(next_round_);
  ++next_round_;
  validated_rounds_ = next_round_;  // a weighted sum is not compared with the plain ones
  tessera::ExactSum total;
  totals_.var_sums_hex.clear();
  for (const auto& s : sums) {
    total.add(s);
    totals_.var_sums_hex.push_back(tessera::hex_bits(s.value()));
  }
  totals_.checksum = total.value();
  totals_.checksum_hex = tessera::hex_bits(totals_.checksum);
}

int Driver::run() {
  const auto start = Clock::now();
  initialize();
  tessera::Exec& exec = session_.exec();
  const auto loop_start = Clock::now();
  const int first_ts = restart_ != nullptr ? totals_.restarted_from + 1 : 1;
  if (restart_ == nullptr) {
    if (options_.num_refine > 0 || options_.uniform_refine != 0) refine_step(0);
    if (options_.plot_freq > 0) plot(0);
  }
  for (int ts = first_ts; ts <= options_.num_tsteps && !stop_; ++ts) {
    if ((options_.report_perf & 8) != 0)
      session_.progress("Timestep {} time {:.6f} delta {:.6f}", ts, static_cast<double>(ts - 1),
                        1.0);
    totals_.blocks_per_step.push_back(mesh_->forest().global_count());
    for (int s = 0; s < options_.stages_per_ts && !stop_; ++s) stage(ts, s);
    if (stop_) break;
    totals_.timesteps_done = ts;
    if (options_.moves_objects()) {
      tessera::move_objects(objects_, 1.0);
      if (ts % options_.refine_freq == 0) refine_step(ts);
    }
    if (options_.plot_freq > 0 && ts % options_.plot_freq == 0) plot(ts);
    if (options_.checkpoint.due(ts) && !stop_) write_checkpoint(ts);
  }
  if (writer_) {
    exec.begin_phase("checkpoint");
    writer_->wait();
    totals_.checkpoints_written = writer_->written();
    totals_.checkpoint_write_seconds = writer_->write_seconds();
    totals_.checkpoint_bytes = writer_->last_bytes();
    exec.end_phase();
  }
  exec.begin_phase("checksum");
  exec.barrier();
  validate_all_pending();
  exec.end_phase();
  totals_.loop_seconds = seconds_since(loop_start);
  exec.begin_phase("final_checksum");
  final_checksum();
  exec.end_phase();

  const MPI_Comm comm = session_.comm().mpi();
  std::int64_t counts[2] = {totals_.splits, totals_.merges};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm);
  totals_.splits = counts[0];
  totals_.merges = counts[1];
  std::int32_t high = std::max(mesh_->max_local_blocks(), restored_max_blocks_);
  MPI_Allreduce(&high, &totals_.max_blocks_per_rank, 1, MPI_INT32_T, MPI_MAX, comm);
  totals_.total_seconds = seconds_since(start);
  MPI_Allreduce(MPI_IN_PLACE, &totals_.loop_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &totals_.total_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return stop_ ? 1 : 0;
}

nlohmann::json Driver::json() const {
  nlohmann::json j;
  j["checksum"] = totals_.checksum_hex;
  j["checksum_value"] = totals_.checksum;
  j["var_checksums"] = totals_.var_sums_hex;
  j["blocks_per_step"] = totals_.blocks_per_step;
  nlohmann::json refinements = nlohmann::json::array();
  for (const auto& r : totals_.refinements)
    refinements.push_back({{"timestep", r.timestep}, {"levels", r.levels}, {"total", r.total}});
  j["refinements"] = refinements;
  j["total_blocks"] = totals_.total_blocks;
  j["flops"] = totals_.flops;
  j["gflops"] = totals_.loop_seconds > 0 ? totals_.flops / totals_.loop_seconds / 1e9 : 0.0;
  j["splits"] = totals_.splits;
  j["merges"] = totals_.merges;
  j["moved"] = totals_.moved;
  j["refine_steps"] = totals_.refine_steps;
  j["balance_steps"] = totals_.balance_steps;
  j["checksums"] = totals_.checksums;
  j["max_blocks_per_rank"] = totals_.max_blocks_per_rank;
  j["timesteps_done"] = totals_.timesteps_done;
  j["loop_s"] = totals_.loop_seconds;
  j["validation"] = totals_.validation_failed ? "failed" : "passed";
  j["checkpoint"] = {{"restarted_from", totals_.restarted_from},
                     {"written", totals_.checkpoints_written},
                     {"write_s", totals_.checkpoint_write_seconds},
                     {"bytes", totals_.checkpoint_bytes},
                     {"read_s", totals_.checkpoint_read_seconds},
                     {"read_phases_s", totals_.checkpoint_read_phases},
                     {"restore_s", totals_.checkpoint_restore_seconds}};
  return j;
}

}  // namespace miniamr
