// radhydro's Simulation (simulation.hpp): the mesh, the fields and the handles of a run,
// the initial state, the hydro stages of a cycle (Heun / SSP-RK2, or IMEX-SSP2(2,2,2)'s
// explicit stages around the radiation solve), their recording and replay, and the
// cycle's max reduction of the signal speed and the faults.

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <vector>

#include "simulation.hpp"
#include "tessera/runtime/compute_hook.hpp"

namespace radhydro {

using namespace tessera;

Simulation::Simulation(Session& session, const Options& o)
    : session_(session),
      o_(o),
      scheme_(make_scheme(o)),
      problem_(o.problem, o.dim, o.axis, scheme_.gas, Problem::defaults(o.problem).length, o.kappa),
      mesh_(make_mesh(session, o)),
      u_(mesh_, session.runtime(), "U", scheme_.nvars),
      s_(mesh_, session.runtime(), "S", scheme_.nvars),
      plan_(mesh_,
            HaloOptions{.send_faces = true, .separate_buffers = true, .copy_per_block = true}),
      halo_(plan_, scheme_.nvars, session.comm(), session.exec(), "halo") {
  rad_ = {.kappa = o.kappa,
          .exchange = o.exchange_on,
          .limiter = o.limiter_on,
          // IMEX's implicit stages are backward-Euler solves over gamma dt.
          .theta = o.coupling == "imex" ? 1.0 : o.rad_theta,
          .omega = 0.8,
          .incident_er = Problem::defaults(o.problem).incident_er,
          .incident_axis = o.axis};
  if (o.radiation_on) {
    // Multigrid reads E_r in its own fields: the iterate here needs no ghost layer and no
    // second buffer (Jacobi's sweeps need both).
    const bool jacobi = o.rad_solver == "jacobi";
    erad_ = std::make_unique<BlockField>(mesh_, session.runtime(), "Erad", 1,
                                         jacobi ? GhostCells::stored : GhostCells::none);
    if (jacobi) erad2_ = std::make_unique<BlockField>(mesh_, session.runtime(), "Erad2", 1);
    coef_ = std::make_unique<BlockField>(mesh_, session.runtime(), "rad-system", kDiffusionVars,
                                         GhostCells::none);
    rad_halo_ =
        std::make_unique<HaloExchange>(plan_, 1, session.comm(), session.exec(), "rad-halo");
    if (o.coupling == "imex") {
      r_ = std::make_unique<BlockField>(mesh_, session.runtime(), "R", scheme_.nvars);
    }
    if (o.rad_solver == "mg") {
      Int3 cells{1, 1, 1}, block_cells{1, 1, 1};
      for (int a = 0; a < o.dim; ++a) {
        cells[a] = o.cells[a];
        block_cells[a] = o.block_cells[a];
      }
      mg_ = std::make_unique<RadiationMultigrid>(session, cells, block_cells, o.dim, o.boundary,
                                                 VCycleOptions{});
    }
    residual_handle_ = session.runtime().create_reduction_handle(
        "rad-residual", &residual_sums_,
        [](std::array<ExactSum, 2>& total, const std::array<ExactSum, 2>& part) {
          total[0].add(part[0]);
          total[1].add(part[1]);
        });
  }
  const int blocks = mesh_.local_block_count();
  faces_.resize(blocks);
  corners_.resize(blocks);
  faults_.assign(3 * blocks, CellFault{});
  for (LocalBlockIndex b = 0; b < blocks; ++b) {
    const MeshBlock& mb = mesh_.local_block(b);
    const Int3 origin = mesh_.cell_origin(mb);
    for (int a = 0; a < 3; ++a) corners_[b][a] = origin[a] * scheme_.dx[a];
    for (int a = 0; a < o.dim; ++a) {
      for (int side = 0; side < 2; ++side) {
        const bool edge = side == 0 ? mb.coord[a] == 0 : mb.coord[a] == mesh_.blocks()[a] - 1;
        const Boundary bc = o.boundary[2 * a + side];
        if (edge && bc != Boundary::periodic) faces_[b][2 * a + side] = bc;
      }
    }
  }
  speed_handle_ = session.runtime().create_handle("max-speed");
  block_speed_.assign(blocks, 0.0);
  for (LocalBlockIndex b = 0; b < blocks; ++b) {
    speed_slots_.push_back(session.runtime().create_handle(fmt::format("speed.{}", b)));
  }
  replay_ = o.replay && session.exec().model() == ExecModel::dataflow;
  one_ = scheme_;
  one_.nvars = 1;
}

Scheme Simulation::make_scheme(const Options& o) {
  Scheme s;
  s.gas = {o.gamma, o.mu};
  s.nvars = o.radiation_on ? kHydroVars + 1 : kHydroVars;
  s.dim = o.dim;
  s.hard_faces = o.face_state == "hard";
  s.radiation_force = o.radiation_on && o.radiation_force_on;
  s.kappa = o.kappa;
  s.limiter = o.limiter_on;
  s.su_olson_epsilon = Problem::defaults(o.problem).su_olson_epsilon;
  const double length = Problem::defaults(o.problem).length;
  for (int a = 0; a < o.dim; ++a) s.dx[a] = length / o.cells[a];
  return s;
}

UniformMesh Simulation::make_mesh(Session& session, const Options& o) {
  Int3 blocks{1, 1, 1}, block_cells{1, 1, 1};
  Periodicity periodic;
  bool* wrap[3] = {&periodic.x, &periodic.y, &periodic.z};
  for (int a = 0; a < o.dim; ++a) {
    blocks[a] = o.cells[a] / o.block_cells[a];
    block_cells[a] = o.block_cells[a];
    *wrap[a] = o.boundary[2 * a] == Boundary::periodic;
  }
  return UniformMesh(blocks, block_cells, kGhost, session.rank(), session.size(), periodic);
}

TaskAttributes Simulation::attributes(LocalBlockIndex b, std::int64_t work) const {
  const MeshBlock& mb = mesh_.local_block(b);
  TaskAttributes a(
      mb.is_skeleton(HaloShape::faces) ? session_.exec().skeleton_priority() : Priority::normal,
      {mb.id});
  a.work = work > 0 ? work : product(mesh_.block_cells());
  return a;
}

TaskAttributes Simulation::block_work() const {
  TaskAttributes a;
  a.work = product(mesh_.block_cells());
  return a;
}

void Simulation::fill_ghosts(BlockField& field, HaloExchange& halo, const Scheme& scheme) {
  halo.exchange(field);
  session_.exec().begin_phase("boundary");
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    const auto& faces = faces_[b];
    if (std::none_of(faces.begin(), faces.end(), [](const auto& f) { return f.has_value(); })) {
      continue;
    }
    // Work: the ghost values it fills (a block on a domain edge or corner has 2-3 faces).
    std::int64_t values = 0;
    const Int3 n = mesh_.block_cells();
    for (int f = 0; f < 6; ++f) {
      if (faces[f]) values += product(n) / n[f / 2] * kGhost * field.nvars();
    }
    session_.runtime().submit(
        "boundary", {read(field.interior(b)), readwrite(field.ghosts(b))},
        [&scheme, &faces, u = field.data(b), layout = &field.layout()] {
          fill_boundaries(*layout, scheme, faces, u);
        },
        attributes(b, values));
  }
  session_.exec().end_phase();
}

template <class Submit>
void Simulation::run_stages(IterationGraph& graph, int cycle, Submit&& submit) {
  if (!replay_) {
    submit();
    return;
  }
  Runtime& runtime = session_.runtime();
  if (graph.empty()) {
    runtime.begin_recording();
    submit();
    graph = runtime.end_recording();
  }
  runtime.replay(graph, cycle, 1);
}

void Simulation::submit_initial() {
  session_.exec().begin_phase("init");
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().submit(
        "init", {write(u_.interior(b))},
        [this, b, u = u_.data(b)] { fill_initial(u_.layout(), scheme_, problem_, corners_[b], u); },
        attributes(b));
  }
  session_.exec().end_phase();
}

bool Simulation::scan(int cycle, double t) {
  speed_ = {0, 0};
  session_.exec().begin_phase("scan");
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().submit(
        "scan", {read(u_.interior(b)), write(speed_slots_[b])},
        [this, b, u = u_.data(b)] {
          CellFault& fault = faults_[3 * b + 1];
          fault = {};
          block_speed_[b] = max_signal_speed(u_.layout(), scheme_, u, fault);
        },
        attributes(b));
  }
  session_.exec().end_phase();
  return finish_reduction(cycle, t);
}

double Simulation::next_dt(double t) const {
  // Skipped bodies (a simulation, docs/scaling-sim.md): no speed was computed; the step
  // is --max-dt (validate() requires one).
  if (compute_bodies_skipped()) return t + o_.max_dt >= o_.t_end ? o_.t_end - t : o_.max_dt;
  double dx = scheme_.dx[0];
  for (int a = 1; a < o_.dim; ++a) dx = std::fmin(dx, scheme_.dx[a]);
  double dt = o_.cfl * dx / speed_[0];
  if (o_.max_dt > 0) dt = std::fmin(dt, o_.max_dt);
  return t + dt >= o_.t_end ? o_.t_end - t : dt;
}

bool Simulation::cycle(double dt, int cycle, double t) {
  dt_ = dt;
  if (r_) return imex_cycle(dt, cycle, t);
  if (erad_ && !radiation_step(u_, u_, dt, cycle, t, true)) return false;
  run_stages(stages_, cycle, [this] { submit_stages(); });
  return finish_reduction(cycle, t);
}

void Simulation::submit_stages() {
  submit_stage(u_, s_, nullptr, 0);
  submit_stage(s_, u_, &u_, 1);
}

bool Simulation::imex_cycle(double dt, int cycle, double t) {
  if (!radiation_step(u_, s_, kImexGamma * dt, cycle, t, true)) return false;
  run_stages(imex_stages_[0], cycle, [this] { submit_imex_stage(0); });
  if (!radiation_step(*r_, s_, kImexGamma * dt, cycle, t, false)) return false;
  run_stages(imex_stages_[1], cycle, [this] { submit_imex_stage(1); });
  return finish_reduction(cycle, t);
}

void Simulation::submit_imex_stage(int stage) {
  fill_ghosts(s_);
  session_.exec().begin_phase(stage == 0 ? "imex-stage1" : "imex-stage2");
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    std::vector<Access> access{read(s_.interior(b)), read(s_.ghosts(b)), readwrite(u_.interior(b))};
    access.push_back(stage == 0 ? write(r_->interior(b)) : read(r_->interior(b)));
    if (stage == 1) access.push_back(write(speed_slots_[b]));
    session_.runtime().submit(
        stage == 0 ? "imex-stage1" : "imex-stage2", std::span<const Access>(access),
        [this, b, stage, src = s_.data(b), u = u_.data(b), r = r_->data(b)] {
          double speed = 0;
          StageArgs args{&u_.layout(), &scheme_, src, u, u, dt_, stage == 1 ? &speed : nullptr};
          args.implicit_in = stage == 0 ? u : r;
          args.next_in = stage == 0 ? r : nullptr;
          args.imex_gamma = kImexGamma;
          faults_[3 * b + stage] = hydro_stage(args);
          if (stage == 1) block_speed_[b] = speed;
        },
        attributes(b));
  }
  session_.exec().end_phase();
}

void Simulation::submit_stage(BlockField& src, BlockField& dst, BlockField* base, int stage) {
  fill_ghosts(src);
  session_.exec().begin_phase(stage == 0 ? "stage1" : "stage2");
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    std::vector<Access> access{read(src.interior(b)), read(src.ghosts(b)),
                               stage == 0 ? write(dst.interior(b)) : readwrite(dst.interior(b))};
    if (stage == 1) access.push_back(write(speed_slots_[b]));
    session_.runtime().submit(
        stage == 0 ? "stage1" : "stage2", std::span<const Access>(access),
        [this, b, stage, src = src.data(b), dst = dst.data(b),
         base = base ? base->data(b) : nullptr] {
          double speed = 0;
          faults_[3 * b + stage] = hydro_stage(
              {&u_.layout(), &scheme_, src, base, dst, dt_, stage == 1 ? &speed : nullptr});
          if (stage == 1) block_speed_[b] = speed;
        },
        attributes(b));
  }
  session_.exec().end_phase();
}

bool Simulation::finish_reduction(int cycle, double t) {
  // This rank's largest speed and fault flag over its blocks, then the max over ranks.
  std::vector<Access> access{write(speed_handle_)};
  for (const Handle h : speed_slots_) access.push_back(read(h));
  session_.runtime().submit("max-speed", std::span<const Access>(access), [this] {
    speed_ = {0, 0};
    for (std::size_t b = 0; b < block_speed_.size(); ++b) {
      speed_[0] = std::fmax(speed_[0], block_speed_[b]);
      for (int k = 0; k < 3; ++k) {
        if (faults_[3 * b + k].bad) speed_[1] = 1;
      }
    }
  });
  session_.comm().iallreduce(speed_handle_, speed_.data(), 2, MPI_DOUBLE, MPI_MAX);
  session_.runtime().wait_for(speed_handle_);
  // Skipped bodies leave no speeds or faults to check (the reduction still runs).
  if (compute_bodies_skipped()) return true;
  if (speed_[1] == 0 && speed_[0] > 0 && std::isfinite(speed_[0])) return true;
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    for (int stage : {2, 0, 1}) {
      const CellFault& f = faults_[3 * b + stage];
      if (!f.bad) continue;
      std::fprintf(stderr,
                   "radhydro: error: cycle %d (t = %.9g): non-positive density, pressure or E_r "
                   "(rho = %.6g, p = %.6g) in %s of block %lld, cell (%d, %d, %d) (rank %d)\n",
                   cycle, t, f.rho, f.p,
                   stage == 2   ? "the radiation exchange"
                   : stage == 0 ? "stage 1"
                                : "stage 2 (or the scan)",
                   static_cast<long long>(mesh_.local_block(b).id), f.cell[0], f.cell[1], f.cell[2],
                   session_.rank());
      break;
    }
  }
  if (speed_[1] == 0 && session_.rank() == 0) {
    std::fprintf(stderr, "radhydro: error: cycle %d (t = %.9g): the signal speed is %g\n", cycle, t,
                 speed_[0]);
  }
  return false;
}

}  // namespace radhydro
