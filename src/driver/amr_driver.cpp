// AmrDriver (layer `driver`): construction, the cycle loop with its stages, step reduction
// and lookahead, sums and totals, and the report. The adaptation step is in
// amr_driver_adaptation.cpp; history rows, plot files, checkpoints and the restart in
// amr_driver_outputs.cpp.
#include "tessera/driver/amr_driver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>

#include "tessera/comm/exact_sum.hpp"
#include "tessera/driver/cell_walk.hpp"
#include "tessera/driver/mesh_checkpoint.hpp"
#include "tessera/driver/state_sums.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/restart.hpp"

namespace tessera {

namespace {

// Weight of a cell value in the checksum: makes the checksum depend on where each value
// sits, not only on the totals.
double cell_weight(int level, const std::array<std::int64_t, 3>& g, int v) {
  const std::int64_t h =
      (g[0] * 7919 + g[1] * 104729 + g[2] * 1299709 + v * 31 + level * 15485863) % 1021;
  return 1.0 + static_cast<double>(h) / 1021.0;
}

}  // namespace

std::string AmrSolver::history_columns() const {
  std::string names;
  for (const FieldSpec& f : fields())
    for (int c = 0; f.checkpointed && c < f.components; ++c)
      names += fmt::format("{}{}{}", names.empty() ? "" : ",", f.name, c);
  return names;
}

long long amr_block_slots_per_rank(const AmrDriverOptions& o, long long max_blocks_per_rank,
                                   int ranks) {
  const auto& roots = o.root_blocks;
  const double root_count = static_cast<double>(roots[0]) * roots[1] * roots[2];
  const double local_roots = std::ceil(root_count / std::max(ranks, 1));
  if (o.max_level == 0) return static_cast<long long>(local_roots);
  if (max_blocks_per_rank > 0) return max_blocks_per_rank;
  const double children = std::ldexp(1.0, o.domain.dim);
  const double worst = std::ceil(root_count * std::ldexp(1.0, o.domain.dim * o.max_level) *
                                 (1 + 1 / children) / std::max(ranks, 1)) +
                       children;
  const double bound = std::max(4096.0, 8 * local_roots);
  return static_cast<long long>(std::min(worst, bound));
}

MemoryEstimate amr_field_memory(const AmrDriverOptions& o, const std::vector<FieldSpec>& fields,
                                long long slots, int ranks) {
  constexpr double kDouble = sizeof(double);
  const auto local = static_cast<double>(slots);
  int ghost = 0, fluxed = 0;
  double variables = 0;
  for (const FieldSpec& f : fields) {
    ghost = std::max(ghost, f.ghost);
    variables += f.components;
    if (f.fluxes) fluxed = f.transfer ? f.transfer->face_flux_values() : f.components;
  }
  double interior = 1, stored = 1, largest_face = 0, face_cells = 0;
  for (int a = 0; a < 3; ++a) {
    interior *= o.block_cells[a];
    stored *= o.block_cells[a] + 2 * (a < o.domain.dim ? ghost : 0);
  }
  for (int a = 0; a < o.domain.dim; ++a) {
    largest_face = std::max(largest_face, interior / o.block_cells[a] * ghost);
    face_cells += 2 * interior / o.block_cells[a];  // one cell layer on each face
  }
  MemoryEstimate need;
  need.add("fields", variables * interior * kDouble * local);
  need.add("ghosts", variables * (stored - interior) * kDouble * local);
  // A flux register per block next to a level jump: the fluxes on each face.
  if (o.max_level > 0 && fluxed > 0)
    need.add("flux registers", fluxed * face_cells * kDouble * local);
  if (ranks > 1) {
    // A rank's Morton range has ~12 L^(2/3) remote faces for L blocks (6 L at most); each
    // exchange sends and receives one field.
    const double dims = o.domain.dim;
    const double remote_faces =
        std::min(2 * dims * local, 4 * dims * std::pow(local, (dims - 1) / dims));
    need.add("message buffers",
             2 * fields.front().components * remote_faces * largest_face * kDouble);
  }
  return need;
}

AmrDriver::AmrDriver(Session& session, AmrSolver& solver, AmrDriverOptions options,
                     std::unique_ptr<CheckpointReader> restart)
    : session_(session),
      solver_(solver),
      options_(std::move(options)),
      fields_(solver.fields()),
      stages_(solver.stages()),
      reader_(std::move(restart)) {
  if (fields_.empty()) throw std::logic_error("AmrDriver: the solver declares no field");
  for (const FieldSpec& f : fields_) {
    // Fields are the mesh's variable groups: all as large as the first, the last may be less.
    const bool last = &f == &fields_.back();
    if (f.amount != fields_.front().amount || f.components > fields_.front().components ||
        (!last && f.components != fields_.front().components))
      throw std::logic_error("AmrDriver: every field needs the same components and amount");
    if ((f.amount == Amount::custom) != (f.transfer != nullptr) ||
        f.transfer != fields_.front().transfer)
      throw std::logic_error("AmrDriver: Amount::custom fields (all or none) need one transfer");
    if (f.checkpointed && state_fields_ < static_cast<int>(&f - fields_.data()))
      throw std::logic_error("AmrDriver: state fields come before scratch fields");
    if (f.checkpointed) ++state_fields_, state_vars_ += f.components;
  }
  if (options_.checkpoint.every > 0)
    writer_ = std::make_unique<CheckpointWriter>(session.comm(), options_.checkpoint);
  if (options_.derefine_count > 1)
    derefinement_delay_ = std::make_unique<DerefinementDelay>(options_.derefine_count);
}

AmrDriver::~AmrDriver() {
  if (costs_) {
    try {
      session_.runtime().wait_all();  // no body may add to the table once it is gone
    } catch (...) {
      // A destructor must not throw; the error was the caller's to collect with a wait.
    }
    session_.runtime().set_cost_table(nullptr);
  }
}

SolverBlock AmrDriver::block(std::int32_t i) {
  SolverBlock v{i, &mesh_->shape(), &mesh_->place(i), mesh_->data(i), {}};
  for (std::size_t a = 0; a < 3; ++a) v.dx[a] = std::ldexp(options_.domain.dx[a], -v.place->level);
  return v;
}

void AmrDriver::initialize() {
  Exec& exec = session_.exec();
  exec.begin_phase("init");
  const FieldSpec& first = fields_.front();
  const int vars = first.components;
  int ghost = 0, all_vars = 0;
  for (const FieldSpec& f : fields_) ghost = std::max(ghost, f.ghost), all_vars += f.components;
  AmrMeshOptions mo;
  mo.root_blocks = options_.root_blocks;
  mo.periodic = options_.periodic;
  mo.dim = options_.domain.dim;
  mo.shape.cells = options_.block_cells;
  mo.shape.ghost = {ghost, ghost, options_.domain.dim == 3 ? ghost : 0};
  mo.shape.num_vars = all_vars;
  mo.shape.group_size = vars;
  if (options_.row_alignment > 0) mo.shape.row_alignment = options_.row_alignment;
  mo.halo.corners = options_.corner_ghosts;
  mo.halo.boundary = options_.boundary;
  mo.halo.send_faces = options_.send_faces || options_.max_comm_tasks > 0;
  mo.halo.max_comm_tasks = options_.max_comm_tasks;
  mo.halo.separate_buffers = options_.separate_buffers;
  for (const FieldSpec& f : fields_)
    for (int c = 0; c < f.components; ++c)
      mo.halo.vector_axis.push_back(
          static_cast<std::size_t>(c) < f.vector_axis.size() ? f.vector_axis[c] : -1);
  if (options_.max_level > 0) {
    mo.halo.level_jumps = first.amount == Amount::per_volume ? LevelJumpRule::per_volume
                          : first.amount == Amount::custom   ? LevelJumpRule::custom
                                                             : LevelJumpRule::per_cell_amount;
    mo.halo.transfer = first.transfer.get();
    mo.data_groups = state_fields_;
    for (const FieldSpec& f : fields_)
      if (f.fluxes) mo.corrected_vars = f.transfer ? f.transfer->face_flux_values() : vars;
  }
  if (reader_) {
    try {
      restart_leaves(*reader_, session_.size(), mo);
    } catch (const CheckpointError& e) {
      session_.fail(e.option(), e.what());
    }
  }
  mesh_ = std::make_unique<AmrMesh>(session_.comm(), exec, mo);
  if (options_.balance.cost()) {
    costs_ = std::make_unique<CostTable>(session_.runtime().threads());
    session_.runtime().set_cost_table(costs_.get());
  }
  dt_handle_ = session_.runtime().create_handle("driver.dt");
  step_handle_ = session_.runtime().create_handle("driver.step");
  const bool sums = !options_.sum_after_stages.empty();
  replay_ = options_.replay && !sums && exec.model() == ExecModel::dataflow;
  blocks_changed();
  submit_initial_state();
  if (sums) sums_ = std::make_unique<StateSums>(session_.comm(), state_vars_);
  if (sums && !reader_) submit_sums(0);  // the reference: the initial state before refinement
  exec.end_phase();
  // Refine the initial state level by level, setting each new level from the problem, or
  // in one step whose new blocks take their parents' state. A restart has its levels
  // already: the forest comes from the checkpoint's leaves.
  if (reader_ || options_.max_level == 0) return;
  if (!options_.initial_levels_from_problem) {
    adapt_mesh(true);
    return;
  }
  for (int level = 0; level < options_.max_level && !failed_; ++level) {
    if (!adapt_mesh(true)) break;
    exec.begin_phase("init");
    submit_initial_state();
    exec.end_phase();
  }
}

void AmrDriver::blocks_changed() {
  const auto blocks = static_cast<std::size_t>(mesh_->local_block_count());
  if (costs_) costs_->reset(blocks);
  // Costs follow adapt and moves; a mesh made otherwise (the first, a restart) has none yet.
  if (costs_ && block_costs_.size() != blocks) block_costs_.assign(blocks, 0.0);
  estimates_.assign(blocks, StepEstimate{});
  wishes_.assign(blocks, 0);
  if (derefinement_delay_) derefinement_delay_->blocks_changed(*mesh_, session_.comm().mpi());
  for (std::size_t b = estimate_handles_.size(); b < blocks; ++b)
    estimate_handles_.push_back(session_.runtime().create_handle(fmt::format("driver.step{}", b)));
  solver_.blocks_changed(*this, mesh_->local_block_count());
}

void AmrDriver::submit_initial_state() {
  if (reader_) return;
  for (LocalBlockIndex b = 0; b < mesh_->local_block_count(); ++b)
    solver_.submit_initial_state(*this, block(b));
}

void AmrDriver::submit_stage(int stage) {
  Exec& exec = session_.exec();
  AmrMesh& mesh = *mesh_;
  const StageSpec& spec = stages_[static_cast<std::size_t>(stage)];
  exec.begin_phase("halo");
  mesh.exchange(spec.exchange);
  exec.end_phase();
  exec.begin_phase(options_.stage_phase);
  FluxCorrection* flux =
      fields_[static_cast<std::size_t>(spec.update)].fluxes ? mesh.flux_correction() : nullptr;
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    StageContext ctx;
    ctx.block = block(b);
    ctx.stage = stage;
    ctx.step = &step_;
    ctx.step_handle = step_handle_;
    if (flux != nullptr && flux->fluxes(b) != nullptr) {
      ctx.flux = flux->fluxes(b);
      ctx.flux_layout = &flux->layout();
      ctx.flux_handle = flux->fluxes_handle(b);
    }
    ctx.priority = mesh.is_skeleton(b) ? exec.skeleton_priority() : Priority::normal;
    // --balance cost: what the solver submits for the block is the block's cost.
    if (costs_) session_.runtime().set_submission_cost_slot(b);
    solver_.submit_stage(*this, ctx);
  }
  if (costs_) session_.runtime().set_submission_cost_slot(-1);
  // Coarse blocks next to finer ones take the fine fluxes on those faces.
  if (flux != nullptr)
    flux->submit(spec.update, stage % 2, &step_, spec.dt_factor, options_.domain.dx, exec);
  exec.end_phase();
  const auto& sum_stages = options_.sum_after_stages;
  if (std::find(sum_stages.begin(), sum_stages.end(), stage) != sum_stages.end()) {
    exec.begin_phase("sums");
    submit_sums(cycle_ + 1);
    check_sums(static_cast<int>(sum_cycles_.size()) - 1);  // delayed: the previous round
    exec.end_phase();
  }
  if (!replay_) solver_.after_stage(*this, stage);
}

void AmrDriver::submit_sums(int cycle) {
  const int r = static_cast<int>(sum_cycles_.size());
  sums_->begin_round(r, *mesh_, SumKind::plain);
  for (int g = 0; g < state_fields_; ++g) sums_->submit_group(*mesh_, g);
  sums_->end_round();
  sum_cycles_.push_back(cycle);
}

void AmrDriver::check_sums(int upto) {
  for (; checked_rounds_ < upto; ++checked_rounds_) {
    const std::vector<ExactSum>& sums = sums_->wait(checked_rounds_);
    solver_.check_sums(*this, sum_cycles_[static_cast<std::size_t>(checked_rounds_)], sums);
  }
}

std::vector<ExactSum> AmrDriver::state_sums(SumKind kind) {
  check_sums(static_cast<int>(sum_cycles_.size()));
  if (!sums_) sums_ = std::make_unique<StateSums>(session_.comm(), state_vars_);
  const int r = static_cast<int>(sum_cycles_.size());
  sums_->begin_round(r, *mesh_, kind);
  for (int g = 0; g < state_fields_; ++g) sums_->submit_group(*mesh_, g);
  sums_->end_round();
  sum_cycles_.push_back(-1);
  checked_rounds_ = r + 1;  // not a check_sums round
  return sums_->wait(r);
}

void AmrDriver::submit_scan() {
  if (options_.fixed_step > 0) return;
  Exec& exec = session_.exec();
  Runtime& runtime = session_.runtime();
  AmrMesh& mesh = *mesh_;
  exec.begin_phase("timestep");
  const std::int32_t n = mesh.local_block_count();
  std::vector<Access> acc;
  for (std::int32_t b = 0; b < n; ++b) {
    const Handle h = estimate_handles_[static_cast<std::size_t>(b)];
    StepEstimate* out = &estimates_[static_cast<std::size_t>(b)];
    std::vector<Access> block_acc;
    for (int g = 0; g < state_fields_; ++g) block_acc.push_back(read(mesh.interior(b, g)));
    block_acc.push_back(write(h));
    TaskAttributes attributes;
    if (costs_) attributes.cost_slot = b;
    runtime.submit(
        "time_step", std::span<const Access>(block_acc),
        [this, view = block(b), out] { *out = solver_.time_step(view); }, attributes);
    acc.push_back(read(h));
  }
  acc.push_back(write(dt_handle_));
  runtime.submit("dt_min", std::span<const Access>(acc), [this, n] {
    double dt = std::numeric_limits<double>::infinity();
    bool bad = false;
    for (std::int32_t b = 0; b < n; ++b) {
      const StepEstimate& e = estimates_[static_cast<std::size_t>(b)];
      dt = std::min(dt, e.dt);
      bad = bad || e.fault;
    }
    dt_reduce_[0] = dt;
    dt_reduce_[1] = bad ? -1.0 : 0.0;
  });
  session_.comm().iallreduce(dt_handle_, dt_reduce_, 2, MPI_DOUBLE, MPI_MIN);
  exec.end_phase();
}

AmrDriver::CycleStep AmrDriver::step_at(double dt, double time) const {
  const bool last = options_.fixed_step == 0 && options_.t_end - time <= dt;
  return {last ? options_.t_end - time : dt, last};
}

void AmrDriver::submit_step_from_scan(double time) {
  session_.runtime().submit(
      "cycle_step", {read(dt_handle_), write(step_handle_)},
      [this, time] {
        scan_fault_ = dt_reduce_[1] < 0;
        scan_step_ = step_at(options_.cfl * dt_reduce_[0], time);
        step_ = scan_fault_ ? 0.0 : scan_step_.step;
      },
      TaskAttributes(Priority::high));
}

bool AmrDriver::may_submit_ahead(bool adapt_due) const {
  // Output, history rows and checkpoints read the state between the cycles; an adaptation
  // changes the mesh; a replayed cycle waits for its tasks; a fixed step needs no reduction.
  return options_.lookahead && session_.exec().model() == ExecModel::dataflow && !replay_ &&
         options_.fixed_step == 0 && !adapt_due && options_.history.empty() &&
         !(options_.output_every > 0 && cycle_ % options_.output_every == 0) &&
         !(writer_ && options_.checkpoint.due(cycle_)) && more_cycles();
}

double AmrDriver::next_dt() {
  if (options_.fixed_step > 0) return options_.fixed_step;
  submit_scan();
  session_.runtime().wait_for(dt_handle_);
  return finish_dt();
}

double AmrDriver::finish_dt() {
  if (options_.fixed_step > 0) return options_.fixed_step;
  if (dt_reduce_[1] < 0) {
    solver_.describe_fault(*this);  // every rank with a bad cell names it; all ranks stop
    failed_ = true;
    return 0;
  }
  return options_.cfl * dt_reduce_[0];
}

StateTotals AmrDriver::totals() {
  const int vars = mesh_->shape().group_size, dim = options_.domain.dim;
  const auto n = static_cast<std::size_t>(state_fields_ * vars);
  const bool per_volume = fields_.front().amount != Amount::per_cell;
  std::vector<ExactSum> sums(n + 1);
  for (int g = 0; g < state_fields_; ++g)
    for_each_cell(
        *mesh_, g,
        [&](int level, const std::array<std::int64_t, 3>& c, const double* u, std::size_t sv) {
          for (int q = 0; q < vars; ++q) {
            const int v = g * vars + q;
            const double value = u[static_cast<std::size_t>(q) * sv];
            // A level-L cell holds 2^-(dim L) of a level-0 cell's volume (exact scaling).
            sums[static_cast<std::size_t>(v)].add(per_volume ? std::ldexp(value, -dim * level)
                                                             : value);
            sums[n].add(value * cell_weight(level, c, v));
          }
        });
  const Handle h = session_.runtime().create_handle("driver.totals");
  for (ExactSum& s : sums) session_.comm().iallreduce_sum(h, &s);
  session_.runtime().wait_for(h);
  StateTotals t;
  // The exact sum of the values in level-0 cell volumes, times that volume, rounded once more.
  const double volume = per_volume ? options_.domain.cell_volume() : 1.0;
  for (std::size_t v = 0; v < n; ++v) t.integral.push_back(sums[v].value() * volume);
  t.checksum = sums[n].value();
  return t;
}

double AmrDriver::global_cells() const {
  return static_cast<double>(mesh_->forest().global_count()) *
         static_cast<double>(mesh_->shape().interior_cells());
}

bool AmrDriver::more_cycles() const {
  return (options_.fixed_step > 0 || time_ < options_.t_end) &&
         (options_.max_cycles == 0 || cycle_ < options_.max_cycles);
}

int AmrDriver::run() {
  initialize();
  Exec& exec = session_.exec();
  exec.barrier();
  const bool restarted = reader_ != nullptr;
  if (restarted) {
    restore();
  } else {
    if (options_.state_totals) start_ = totals();
    if (!options_.history.empty())
      history_ = fmt::format("cycle,t,dt,{},blocks\n", solver_.history_columns());
  }
  solver_.started(*this, restarted);
  // MPI_Wtime: the monotonic clock in a real run, the simulated one under SMPI.
  const double loop_start = MPI_Wtime();
  double dt = next_dt();
  if (!options_.history.empty() && !failed_ && !restarted) write_history_line(0);
  if (restarted && pending_adaptation_ && !failed_ && more_cycles()) {
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
  if (options_.output_every > 0 && !failed_) write_output();
  // Under dataflow a cycle is submitted before the previous cycle's step reduction
  // completes when nothing of the main thread's comes between them (may_submit_ahead): a
  // task sets its step from the reduction, and the ghost exchange starts as soon as each
  // block's previous update is done, so skeleton blocks' messages leave while the enclaves
  // still compute (enclave tasking). The steps are the same values as the main thread's.
  bool ahead = false;
  while (!failed_ && more_cycles()) {
    CycleStep step;
    if (ahead) {
      submit_step_from_scan(time_);
    } else {
      step = step_at(dt, time_);
      step_ = step.step;  // no task in flight reads it: the reduction waited for them
    }
    const bool replay_cycle = replay_;
    if (replay_cycle) {
      if (!cycle_graph_) {
        Runtime& runtime = session_.runtime();
        runtime.begin_recording();
        for (std::size_t s = 0; s < stages_.size(); ++s) submit_stage(static_cast<int>(s));
        submit_scan();
        cycle_graph_ = std::make_unique<IterationGraph>(runtime.end_recording());
      }
      session_.runtime().replay(*cycle_graph_, cycle_, 1);
    } else {
      for (std::size_t s = 0; s < stages_.size() && !failed_; ++s)
        submit_stage(static_cast<int>(s));
      if (!failed_) submit_scan();
    }
    if (ahead) {
      session_.runtime().wait_for(step_handle_);
      if (scan_fault_) {
        exec.barrier();  // the cancelled cycle's tasks returned untouched
        solver_.describe_fault(*this);
        failed_ = true;
      }
      step = scan_step_;
    }
    if (failed_) break;
    ++cycle_;
    zone_updates_ += global_cells();
    time_ = step.last ? options_.t_end : time_ + step.step;
    const bool more = more_cycles();
    const bool adapt_due =
        options_.max_level > 0 && options_.adapt_every > 0 && cycle_ % options_.adapt_every == 0;
    ahead = may_submit_ahead(adapt_due);
    if (!ahead) {
      if (!replay_cycle && options_.fixed_step == 0) session_.runtime().wait_for(dt_handle_);
      dt = finish_dt();
      if (failed_) break;
      // Refined blocks need a smaller step.
      if (adapt_due && (more || options_.adapt_at_end) && adapt_mesh()) dt = next_dt();
      if (unbalanced_ || failed_) {
        failed_ = true;
        break;
      }
      if (!options_.history.empty()) write_history_line(step.step);
    }
    if (options_.progress_every > 0 && cycle_ % options_.progress_every == 0)
      session_.progress("cycle {} t {:.6e} dt {:.6e} blocks {}", cycle_, time_, step.step,
                        mesh_->forest().global_count());
    if (ahead) continue;
    if (options_.output_every > 0 && cycle_ % options_.output_every == 0) write_output();
    checkpoint_if_due(adapt_due && !more && !options_.adapt_at_end);
  }
  if (writer_) writer_->wait();
  exec.barrier();
  if (sums_ && !failed_) check_sums(static_cast<int>(sum_cycles_.size()));
  loop_seconds_ = MPI_Wtime() - loop_start;
  MPI_Allreduce(MPI_IN_PLACE, &loop_seconds_, 1, MPI_DOUBLE, MPI_MAX, session_.comm().mpi());
  if (unbalanced_ || failed_) return 1;
  if (options_.output_every > 0 && cycle_ % options_.output_every != 0) write_output();
  level_counts_ = mesh_->forest().global_level_counts(options_.max_level);
  std::int64_t changes[3] = {split_, merged_, 0};
  for (LocalBlockIndex b = 0; b < mesh_->local_block_count(); ++b)
    changes[2] += mesh_->is_skeleton(b);
  MPI_Allreduce(MPI_IN_PLACE, changes, 3, MPI_INT64_T, MPI_SUM, session_.comm().mpi());
  split_ = changes[0];
  merged_ = changes[1];
  skeleton_blocks_ = changes[2];
  max_blocks_ = std::max<std::int64_t>(mesh_->max_local_blocks(), restored_max_blocks_);
  MPI_Allreduce(MPI_IN_PLACE, &max_blocks_, 1, MPI_INT64_T, MPI_MAX, session_.comm().mpi());
  if (options_.state_totals) end_ = totals();
  solver_.finished(*this);
  if (!options_.history.empty() && session_.rank() == 0)
    write_file_atomically(options_.history, history_);
  if (options_.max_level > 0)
    session_.say("Adaptations {} blocks by level {}", adaptations_, fmt::join(level_counts_, " "));
  return failed_ ? 1 : 0;
}

nlohmann::json AmrDriver::json() const {
  nlohmann::json j;
  if (options_.state_totals) {
    j["checksum"] = hex_bits(end_.checksum);
    j["checksum_value"] = end_.checksum;
  }
  j["conserved_hex"] = nlohmann::json::array();
  nlohmann::json drift = nlohmann::json::array();
  for (std::size_t v = 0; v < end_.integral.size(); ++v) {
    const double a = start_.integral[v], b = end_.integral[v];
    drift.push_back(a != 0 ? std::fabs(b - a) / std::fabs(a) : std::fabs(b - a));
    j["conserved_hex"].push_back(hex_bits(b));
  }
  j["conserved_drift"] = drift;
  j["cycles"] = cycle_;
  j["time"] = time_;
  j["cells"] = static_cast<std::int64_t>(global_cells());
  j["blocks"] = mesh_->forest().global_count();
  // Blocks with a face neighbour on another rank at the end (their tasks go first under
  // --priorities skeleton); the rest are the enclaves.
  j["skeleton_blocks"] = skeleton_blocks_;
  j["loop_s"] = loop_seconds_;
  j["zone_cycles_per_s"] = zone_cycles_per_second();
  j["zone_cycles"] = zone_updates_;
  j["max_level"] = options_.max_level;
  j["adaptations"] = adaptations_;
  j["balance"] = options_.balance.balance;
  j["blocks_by_level"] = level_counts_;
  j["face_balanced"] = !unbalanced_;  // checked after every adaptation
  j["blocks_split"] = split_;
  j["families_merged"] = merged_;
  j["blocks_moved"] = moved_;
  j["repartitions"] = repartitions_;
  j["max_blocks_per_rank"] = max_blocks_;
  j["checkpoint"] = {{"restarted_from", restarted_from_},
                     {"written", writer_ ? writer_->written() : 0},
                     {"write_s", writer_ ? writer_->write_seconds() : 0.0},
                     {"bytes", writer_ ? writer_->last_bytes() : 0},
                     {"read_s", read_seconds_},
                     {"read_phases_s", read_phases_},
                     {"restore_s", restore_seconds_}};
  j.update(solver_.report(*this));
  return j;
}

}  // namespace tessera
