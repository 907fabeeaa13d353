#include "driver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>

#include "memory_needed.hpp"
#include "outputs.hpp"
#include "refinement.hpp"
#include "riemann_exact.hpp"
#include "tessera/amr/marking.hpp"
#include "tessera/comm/exact_sum.hpp"

namespace euler {

namespace {

using Clock = std::chrono::steady_clock;

// Weight of a cell value in the checksum: makes the checksum depend on where each value
// sits, not only on the conserved totals.
double cell_weight(int level, const std::array<std::int64_t, 3>& g, int v) {
  const std::int64_t h =
      (g[0] * 7919 + g[1] * 104729 + g[2] * 1299709 + v * 31 + level * 15485863) % 1021;
  return 1.0 + static_cast<double>(h) / 1021.0;
}

// Sedov-Taylor radius R = xi0 (E t^2 / rho)^(1 / (d + 2)) for gamma = 1.4, where
// E = alpha rho R^(d+2) / t^2 and alpha = 0.851 (spherical) or 0.984 (cylindrical): the
// constants of Kamm & Timmes, "On efficient generation of numerically robust Sedov
// solutions" (LA-UR-07-2849). Other gammas have no radius here (-1).
double sedov_taylor_radius(int dim, double gamma, double energy, double t) {
  if (std::fabs(gamma - 1.4) > 1e-12) return -1;
  const double alpha = dim == 3 ? 0.851 : 0.984;
  return std::pow(energy * t * t / alpha, 1.0 / (dim + 2));
}

}  // namespace

Driver::Driver(tessera::Session& session, const Options& options,
               std::unique_ptr<tessera::CheckpointReader> restart)
    : session_(session),
      options_(options),
      geo_(make_geometry(options)),
      checkpoint_(std::make_unique<EulerCheckpoint>(session, options_, std::move(restart))) {}

Driver::~Driver() = default;

void Driver::initialize() {
  tessera::Exec& exec = session_.exec();
  tessera::Runtime& runtime = session_.runtime();
  exec.begin_phase("init");
  tessera::AmrMeshOptions mo;
  mo.root_blocks = options_.root_blocks();
  mo.periodic = geo_.periodic;
  mo.dim = options_.dim;
  mo.shape.cells = options_.block_cells;
  mo.shape.ghost = {kGhost, kGhost, options_.dim == 3 ? kGhost : 0};
  mo.shape.num_vars = 2 * kVars;
  mo.shape.group_size = kVars;
  mo.halo.boundary = geo_.boundary;
  mo.halo.send_faces = options_.send_faces || options_.max_comm_tasks > 0;
  mo.halo.max_comm_tasks = options_.max_comm_tasks;
  mo.halo.separate_buffers = options_.separate_buffers;
  // Momentum components of both groups (U and U*) flip sign at a reflecting wall.
  mo.halo.vector_axis = {-1, 0, 1, 2, -1, -1, 0, 1, 2, -1};
  if (options_.max_level > 0) {
    // Per-volume variables: prolongation / restriction across level jumps, U* is scratch,
    // and the fluxes of all five variables are corrected at coarse-fine faces.
    mo.halo.level_jumps = tessera::LevelJumpRule::per_volume;
    mo.data_groups = 1;
    mo.corrected_vars = kVars;
  }
  checkpoint_->prepare_mesh(mo);
  mesh_ = std::make_unique<tessera::AmrMesh>(session_.comm(), exec, mo);
  dt_handle_ = runtime.create_handle("euler.dt");
  replay_ = options_.replay && exec.model() == tessera::ExecModel::dataflow;
  resize_block_arrays();
  submit_initial_state();
  exec.end_phase();
  // Refine the initial state level by level, setting each new level from the problem.
  // A restart has its levels already: the forest comes from the checkpoint's leaves.
  for (int level = 0; level < options_.max_level && !checkpoint_->restarting() && !failed_;
       ++level) {
    if (!adapt_mesh()) break;
    exec.begin_phase("init");
    submit_initial_state();
    exec.end_phase();
  }
}

void Driver::resize_block_arrays() {
  const auto blocks = static_cast<std::size_t>(mesh_->local_count());
  scans_.assign(blocks, ScanResult{});
  wishes_.assign(blocks, 0);
  for (auto& faults : stage_faults_) faults.assign(blocks, CellFault{});
  for (std::size_t b = scan_handles_.size(); b < blocks; ++b)
    scan_handles_.push_back(session_.runtime().create_handle(fmt::format("euler.scan{}", b)));
  if (options_.stage_tasks != StageTasks::split) return;
  // The split stage's buffers: a slot keeps its allocation while the rank holds that many
  // blocks (every block has the same shape), so a recorded cycle's pointers stay valid.
  const tessera::BlockShape& shape = mesh_->shape();
  const tessera::FluxRegister layout(shape, kVars);
  const bool registers = options_.max_level > 0;  // flux correction at level jumps
  stage_buffers_.resize(blocks);
  for (StageBuffers& buf : stage_buffers_) {
    if (!buf.w.empty()) continue;
    buf.w.resize(primitive_layout(shape).size());
    for (int a = 0; a < options_.dim; ++a) {
      const auto axis = static_cast<std::size_t>(a);
      buf.term[axis].resize(kVars * shape.interior_cells());
      if (registers) buf.faces[axis].resize(layout.offset[2 * axis + 2] - layout.offset[2 * axis]);
    }
  }
  for (std::size_t b = w_handles_.size(); b < blocks; ++b) {
    w_handles_.push_back(session_.runtime().create_handle(fmt::format("euler.w{}", b)));
    std::array<tessera::Handle, 3> terms;
    for (int a = 0; a < 3; ++a)
      terms[static_cast<std::size_t>(a)] =
          session_.runtime().create_handle(fmt::format("euler.term{}.{}", b, "xyz"[a]));
    term_handles_.push_back(terms);
  }
}

void Driver::submit_initial_state() {
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = *mesh_;
  const tessera::BlockShape& shape = mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_count() && !checkpoint_->restarting(); ++b) {
    double* block = mesh.data(b);
    const tessera::BlockPlace place = mesh.place(b);
    const Options* o = &options_;
    const Geometry* geo = &geo_;
    runtime.submit(
        "euler_init", {tessera::write(mesh.interior(b, 0))}, [&shape, place, block, o, geo] {
          std::array<std::int64_t, 3> base{};
          for (int a = 0; a < 3; ++a) base[a] = place.origin[a] / place.length() * shape.cells[a];
          const tessera::BlockLayout l = shape.layout();
          const auto sv = static_cast<std::size_t>(l.stride_var());
          double u[kVars];
          for (int i = 0; i < shape.cells[0]; ++i)
            for (int j = 0; j < shape.cells[1]; ++j)
              for (int k = 0; k < shape.cells[2]; ++k) {
                initial_state(*o, *geo, {base[0] + i, base[1] + j, base[2] + k}, u, place.level);
                const auto c = static_cast<std::size_t>(l.index(0, i, j, k));
                for (int v = 0; v < kVars; ++v) block[c + v * sv] = u[v];
              }
        });
  }
}

bool Driver::adapt_mesh() {
  tessera::Exec& exec = session_.exec();
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = *mesh_;
  exec.begin_phase("adapt");
  // Families of 8 siblings on one rank (a merge needs them); usually nothing moves.
  if (mesh.gather_families() > 0) cycle_graph_.reset();  // new plans: record again
  resize_block_arrays();
  // Fresh ghosts of U: the criterion's differences and the split's slopes read them.
  mesh.exchange(0);
  const tessera::BlockShape* shape = &mesh.shape();
  for (std::int32_t b = 0; b < mesh.local_count(); ++b) {
    std::int8_t* wish = &wishes_[static_cast<std::size_t>(b)];
    const double* block = mesh.data(b);
    const Options* o = &options_;
    runtime.submit("euler_criterion",
                   {tessera::read(mesh.interior(b, 0)), tessera::read(mesh.ghosts(b, 0, 0)),
                    tessera::read(mesh.ghosts(b, 0, 1)), tessera::read(mesh.ghosts(b, 0, 2))},
                   [shape, block, o, wish] {
                     *wish =
                         refinement_wish(refinement_indicator(*shape, o->dim, block, 0, o->gamma),
                                         o->refine_above, o->derefine_below);
                   });
  }
  exec.barrier();
  const std::vector<std::int8_t> marks =
      tessera::balanced_marks(mesh.forest(), wishes_, options_.max_level);
  int change = 0;
  for (std::int8_t m : marks) change = change != 0 || m != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &change, 1, MPI_INT, MPI_MAX, session_.comm().mpi());
  if (change == 0) {
    exec.end_phase();
    return false;
  }
  const tessera::AdaptCounts counts = mesh.adapt(marks);
  split_ += counts.split;
  merged_ += counts.merged;
  mesh.rebalance();
  exec.barrier();
  ++adaptations_;
  // The memory check counted block_slots_per_rank slots; a run that needs more stops here.
  long long slots = mesh.max_local_blocks();
  MPI_Allreduce(MPI_IN_PLACE, &slots, 1, MPI_LONG_LONG, MPI_MAX, session_.comm().mpi());
  const long long allowed = block_slots_per_rank(options_, session_.size());
  if (slots > allowed) {
    if (session_.rank() == 0)
      fmt::print(stderr,
                 "euler: error: --max-blocks-per-rank: adaptation {} (cycle {}) needs {} block "
                 "slots on a rank, more than the {} the memory check counted; raise "
                 "--max-blocks-per-rank or lower --max-level\n",
                 adaptations_, cycle_, slots, allowed);
    failed_ = true;
  }
  if (!mesh.forest().is_face_balanced()) {
    fmt::print(stderr, "euler: error: the mesh is not 2:1 balanced after adaptation {}\n",
               adaptations_);
    unbalanced_ = true;
  }
  resize_block_arrays();
  cycle_graph_.reset();  // the recorded tasks refer to the old mesh's plans
  exec.end_phase();
  return true;
}

void Driver::submit_scan() {
  tessera::Exec& exec = session_.exec();
  tessera::Runtime& runtime = session_.runtime();
  tessera::AmrMesh& mesh = *mesh_;
  exec.begin_phase("timestep");
  const std::int32_t n = mesh.local_count();
  std::vector<tessera::Access> acc;
  for (std::int32_t b = 0; b < n; ++b) {
    ScanResult* out = &scans_[static_cast<std::size_t>(b)];
    const tessera::BlockShape* shape = &mesh.shape();
    const double* block = mesh.data(b);
    std::array<double, 3> dx{};
    for (int a = 0; a < 3; ++a) dx[a] = std::ldexp(geo_.dx[a], -mesh.place(b).level);
    const int dim = options_.dim;
    const double gamma = options_.gamma;
    runtime.submit("euler_scan",
                   {tessera::read(mesh.interior(b, 0)),
                    tessera::write(scan_handles_[static_cast<std::size_t>(b)])},
                   [=] { *out = scan_block(*shape, dim, block, 0, dx, gamma); });
    acc.push_back(tessera::read(scan_handles_[static_cast<std::size_t>(b)]));
  }
  acc.push_back(tessera::write(dt_handle_));
  runtime.submit("euler_dt_min", std::span<const tessera::Access>(acc), [this, n] {
    double dt = std::numeric_limits<double>::infinity();
    bool bad = false;
    for (std::int32_t b = 0; b < n; ++b) {
      const auto i = static_cast<std::size_t>(b);
      dt = std::min(dt, scans_[i].dt);
      bad = bad || scans_[i].fault.bad || stage_faults_[0][i].bad || stage_faults_[1][i].bad;
    }
    dt_reduce_[0] = dt;
    dt_reduce_[1] = bad ? -1.0 : 0.0;
  });
  session_.comm().iallreduce(dt_handle_, dt_reduce_, 2, MPI_DOUBLE, MPI_MIN);
  exec.end_phase();
}

double Driver::next_dt() {
  submit_scan();
  session_.runtime().wait_for(dt_handle_);
  return finish_dt();
}

double Driver::finish_dt() {
  tessera::AmrMesh& mesh = *mesh_;
  const std::int32_t n = mesh.local_count();
  if (dt_reduce_[1] < 0) {
    // Every rank with a bad cell names it; all ranks stop.
    for (std::int32_t b = 0; b < n; ++b) {
      const auto i = static_cast<std::size_t>(b);
      const CellFault* fault = nullptr;
      const char* when = "";
      if (stage_faults_[0].size() > i && stage_faults_[0][i].bad) {
        fault = &stage_faults_[0][i];
        when = "the predictor's input";
      } else if (stage_faults_[1].size() > i && stage_faults_[1][i].bad) {
        fault = &stage_faults_[1][i];
        when = "the half-step state";
      } else if (scans_[i].fault.bad) {
        fault = &scans_[i].fault;
        when = "the updated state";
      }
      if (fault == nullptr) continue;
      const tessera::BlockPlace& p = mesh.place(b);
      const auto box = mesh.forest().unit_box(p);
      fmt::print(stderr,
                 "euler: error: non-positive density or pressure at cycle {} (t = {:.9g}) in "
                 "{}: block at level {} with lower corner ({:.6g}, {:.6g}, {:.6g}), cell ({}, "
                 "{}, {}) of the block: rho = {:.6g}, p = {:.6g} (rank {})\n",
                 cycle_, time_, when, p.level, geo_.lo[0] + box[0][0] * (geo_.hi[0] - geo_.lo[0]),
                 geo_.lo[1] + box[1][0] * (geo_.hi[1] - geo_.lo[1]),
                 geo_.lo[2] + box[2][0] * (geo_.hi[2] - geo_.lo[2]), fault->cell[0], fault->cell[1],
                 fault->cell[2], fault->rho, fault->p, session_.rank());
      break;
    }
    failed_ = true;
    return 0;
  }
  return options_.cfl * dt_reduce_[0];
}

Totals Driver::totals() {
  std::array<tessera::ExactSum, kVars + 1> sums;
  const int dim = options_.dim;
  for_each_cell(*mesh_, [&](int level, const std::array<std::int64_t, 3>& g, const double* u,
                            std::size_t sv) {
    for (int v = 0; v < kVars; ++v) {
      // A level-L cell holds 2^-(dim L) of a level-0 cell's volume (exact scaling).
      sums[static_cast<std::size_t>(v)].add(std::ldexp(u[v * sv], -dim * level));
      sums[kVars].add(u[v * sv] * cell_weight(level, g, v));
    }
  });
  const tessera::Handle h = session_.runtime().create_handle("euler.totals");
  for (auto& s : sums) session_.comm().iallreduce_sum(h, &s);
  session_.runtime().wait_for(h);
  Totals t;
  // The exact sum of the values in level-0 cell volumes, times that volume, rounded once more.
  for (int v = 0; v < kVars; ++v)
    t.conserved[static_cast<std::size_t>(v)] =
        sums[static_cast<std::size_t>(v)].value() * geo_.cell_volume();
  t.checksum = sums[kVars].value();
  return t;
}

double Driver::global_cells() const {
  return static_cast<double>(mesh_->forest().global_count()) *
         static_cast<double>(mesh_->shape().interior_cells());
}

void Driver::write_history_line(double dt) {
  session_.exec().barrier();
  const Totals t = totals();
  history_ += fmt::format("{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{}\n", cycle_,
                          time_, dt, t.conserved[0], t.conserved[1], t.conserved[2], t.conserved[3],
                          t.conserved[4], mesh_->forest().global_count());
}

void Driver::final_figures() {
  tessera::AmrMesh& mesh = *mesh_;
  if (options_.problem == Problem::sod) {
    const ExactRiemann exact({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, options_.gamma);
    tessera::ExactSum error;
    const int axis = options_.axis;
    const int dim = options_.dim;
    for_each_cell(
        mesh, [&](int level, const std::array<std::int64_t, 3>& g, const double* u, std::size_t) {
          const double x = geo_.centre(axis, g[axis], level);
          // The mean over the domain: a level-L cell weighs 2^-(dim L) level-0 cells.
          error.add(std::ldexp(std::fabs(u[0] - exact.sample(x / time_).rho), -dim * level));
        });
    const tessera::Handle h = session_.runtime().create_handle("euler.l1");
    session_.comm().iallreduce_sum(h, &error);
    session_.runtime().wait_for(h);
    const double cells = static_cast<double>(geo_.cells[0]) * geo_.cells[1] * geo_.cells[2];
    sod_l1_ = error.value() / cells;
  }
  if (options_.problem == Problem::sedov) {
    const RadialProfile profile = radial_profile(session_, mesh, options_, geo_);
    std::size_t peak = 0;
    for (std::size_t i = 0; i < profile.rho.size(); ++i)
      if (profile.rho[i] > profile.rho[peak]) peak = i;
    sedov_radius_ = profile.r.empty() ? -1 : profile.r[peak];
    sedov_analytic_ =
        sedov_taylor_radius(options_.dim, options_.gamma, options_.sedov_energy, time_);
    if (!options_.lineout.empty()) write_radial_profile(session_, profile, options_.lineout);
  } else if (!options_.lineout.empty()) {
    write_lineout(session_, mesh, options_, geo_,
                  options_.problem == Problem::sod ? options_.axis : 0, options_.lineout);
  }
}

int Driver::run() {
  initialize();
  tessera::Exec& exec = session_.exec();
  exec.barrier();
  const bool restarted = checkpoint_->restarting();
  if (restarted) {
    const DriverState state = checkpoint_->restore(*mesh_);
    cycle_ = state.cycle;
    time_ = state.time;
    for (int v = 0; v < kVars; ++v)
      start_.conserved[static_cast<std::size_t>(v)] = state.start_totals.at(v).get<double>();
    start_.checksum = state.start_totals.at(kVars).get<double>();
    history_ = state.history;
    pending_adaptation_ = state.adapt_pending;
  } else {
    start_ = totals();
    if (!options_.history.empty()) history_ = "cycle,t,dt,mass,mom_x,mom_y,mom_z,energy,blocks\n";
  }
  const auto loop_start = Clock::now();
  double dt = next_dt();
  if (!options_.history.empty() && !failed_ && !restarted) write_history_line(0);
  if (restarted && pending_adaptation_ && !failed_ && time_ < options_.t_end &&
      (options_.max_cycles == 0 || cycle_ < options_.max_cycles)) {
    // The checkpoint was written at the end of a run, before that cycle's adaptation: run
    // it as the straight run did, and rewrite the cycle's history row (it counts the blocks
    // and totals after the adaptation).
    if (adapt_mesh()) dt = next_dt();
    if (!options_.history.empty() && !failed_) {
      const std::size_t last = history_.rfind('\n', history_.size() - 2);
      const std::string row = history_.substr(last + 1);
      const std::size_t t_end = row.find(',', row.find(',') + 1);
      const double step = std::stod(row.substr(t_end + 1));
      history_.resize(last + 1);
      write_history_line(step);
    }
  }
  const auto plot = [&] {
    exec.barrier();
    const std::string path = fmt::format("{}_c{:06d}.vtk", options_.plot_prefix, cycle_);
    write_vtk(session_, *mesh_, options_, geo_, time_, path);
    session_.progress("euler: wrote {}", path);
  };
  if (options_.plot_every > 0 && !failed_) plot();
  while (!failed_ && time_ < options_.t_end &&
         (options_.max_cycles == 0 || cycle_ < options_.max_cycles)) {
    const bool last = options_.t_end - time_ <= dt;
    const double step = last ? options_.t_end - time_ : dt;
    step_ = step;
    const bool replay_cycle = replay_;
    if (replay_cycle) {
      if (!cycle_graph_) {
        tessera::Runtime& runtime = session_.runtime();
        runtime.begin_recording();
        submit_stage(0);
        submit_stage(1);
        submit_scan();
        cycle_graph_ = std::make_unique<tessera::IterationGraph>(runtime.end_recording());
      }
      session_.runtime().replay(*cycle_graph_, cycle_, 1);
    } else {
      submit_stage(0);
      submit_stage(1);
    }
    ++cycle_;
    zone_updates_ += global_cells();
    time_ = last ? options_.t_end : time_ + step;
    dt = replay_cycle ? finish_dt() : next_dt();
    if (failed_) break;
    const bool more =
        time_ < options_.t_end && (options_.max_cycles == 0 || cycle_ < options_.max_cycles);
    const bool adapt_due = options_.max_level > 0 && cycle_ % options_.adapt_every == 0;
    if (adapt_due && more && adapt_mesh()) dt = next_dt();  // refined blocks need a smaller step
    if (unbalanced_ || failed_) {
      failed_ = true;
      break;
    }
    if (!options_.history.empty()) write_history_line(step);
    if (cycle_ % options_.progress_every == 0)
      session_.progress("cycle {} t {:.6e} dt {:.6e} blocks {}", cycle_, time_, step,
                        mesh_->forest().global_count());
    if (options_.plot_every > 0 && cycle_ % options_.plot_every == 0) plot();
    nlohmann::json start_totals(start_.conserved);
    start_totals.push_back(start_.checksum);
    checkpoint_->after_cycle(*mesh_, {cycle_, time_, start_totals, history_, adapt_due && !more});
  }
  checkpoint_->wait();
  exec.barrier();
  loop_seconds_ = std::chrono::duration<double>(Clock::now() - loop_start).count();
  MPI_Allreduce(MPI_IN_PLACE, &loop_seconds_, 1, MPI_DOUBLE, MPI_MAX, session_.comm().mpi());
  if (unbalanced_ || failed_) return 1;
  if (options_.plot_every > 0 && cycle_ % options_.plot_every != 0) plot();
  end_ = totals();
  level_counts_ = mesh_->forest().global_level_counts(options_.max_level);
  std::int64_t changes[2] = {split_, merged_};
  MPI_Allreduce(MPI_IN_PLACE, changes, 2, MPI_INT64_T, MPI_SUM, session_.comm().mpi());
  split_ = changes[0];
  merged_ = changes[1];
  final_figures();
  if (!options_.history.empty() && session_.rank() == 0)
    tessera::write_file_atomically(options_.history, history_);
  const double cells = global_cells();
  session_.say(
      "Summary: euler {} {}-D cells {} blocks {} ranks {} threads {} cycles {} t {:.6g} "
      "zone-cycles/s {:.4g} checksum {}",
      options_.problem_name, options_.dim, static_cast<std::int64_t>(cells),
      mesh_->forest().global_count(), session_.size(), session_.runtime().threads(), cycle_, time_,
      loop_seconds_ > 0 ? zone_updates_ / loop_seconds_ : 0.0, tessera::hex_bits(end_.checksum));
  if (options_.max_level > 0)
    session_.say("Adaptations {} blocks by level {}", adaptations_, fmt::join(level_counts_, " "));
  if (sod_l1_ >= 0) session_.say("Sod L1 density error {:.6e}", sod_l1_);
  if (sedov_radius_ >= 0)
    session_.say("Sedov shock radius {:.6g} (Sedov-Taylor {:.6g})", sedov_radius_, sedov_analytic_);
  return 0;
}

nlohmann::json Driver::json() const {
  const auto totals_json = [](const Totals& t) {
    return nlohmann::json{{"mass", t.conserved[0]},
                          {"momentum", {t.conserved[1], t.conserved[2], t.conserved[3]}},
                          {"energy", t.conserved[4]}};
  };
  const double cells = global_cells();
  nlohmann::json j;
  j["checksum"] = tessera::hex_bits(end_.checksum);
  j["checksum_value"] = end_.checksum;
  j["problem"] = options_.problem_name;
  j["dim"] = options_.dim;
  j["cycles"] = cycle_;
  j["time"] = time_;
  j["cells"] = static_cast<std::int64_t>(cells);
  j["blocks"] = mesh_->forest().global_count();
  j["loop_s"] = loop_seconds_;
  j["zone_cycles_per_s"] = loop_seconds_ > 0 ? zone_updates_ / loop_seconds_ : 0.0;
  j["zone_cycles"] = zone_updates_;
  j["max_level"] = options_.max_level;
  j["adaptations"] = adaptations_;
  j["blocks_by_level"] = level_counts_;
  j["face_balanced"] = !unbalanced_;  // checked after every adaptation
  j["blocks_split"] = split_;
  j["families_merged"] = merged_;
  j["totals_start"] = totals_json(start_);
  j["totals_end"] = totals_json(end_);
  nlohmann::json drift;
  for (int v = 0; v < kVars; ++v) {
    const double a = start_.conserved[static_cast<std::size_t>(v)];
    const double b = end_.conserved[static_cast<std::size_t>(v)];
    drift.push_back(a != 0 ? std::fabs(b - a) / std::fabs(a) : std::fabs(b - a));
  }
  j["conserved_drift"] = drift;
  j["conserved_hex"] = nlohmann::json::array();
  for (double v : end_.conserved) j["conserved_hex"].push_back(tessera::hex_bits(v));
  j["checkpoint"] = checkpoint_->report();
  if (sod_l1_ >= 0) j["sod_l1_density_error"] = sod_l1_;
  if (sedov_radius_ >= 0) {
    j["sedov_shock_radius"] = sedov_radius_;
    j["sedov_analytic_radius"] = sedov_analytic_ >= 0 ? nlohmann::json(sedov_analytic_) : nullptr;
  }
  return j;
}

}  // namespace euler
