// radhydro: radiation hydrodynamics as FleCSI's HARD runs it, on tessera's uniform block
// mesh (docs/apps/radhydro.md). The hydro part is HARD's scheme: WENO5-Z reconstruction
// of the primitives, HLL fluxes with Davis speeds, Heun / SSP-RK2 in time, 3 ghost layers.
//
// A cycle: the dt from the previous cycle's reduction; ghost exchange of U, the domain
// boundaries, stage 1 (S = U + dt K(U)) per block; exchange of S, boundaries, stage 2
// (U = (U + S + dt K(S)) / 2) per block, which also scans the new U for the next dt; the
// max reduction over ranks. With radiation, the radiation step (diffusion solve, exchange)
// comes first (--coupling split) or forms the implicit stages of IMEX-SSP2(2,2,2) around the
// two explicit stages (--coupling imex, imex_cycle). Every kernel is a task on one block, so
// the cycle runs the same under bsp, forkjoin and dataflow and gives the same bits on any
// rank and thread count.

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "block_kernels.hpp"
#include "options.hpp"
#include "problems.hpp"
#include "radiation_kernels.hpp"
#include "radiation_multigrid.hpp"
#include "tessera/base/atomic_file.hpp"
#include "tessera/io/block_field_checkpoint.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/runtime/compute_hook.hpp"
#include "tessera/session.hpp"

namespace radhydro {
namespace {

using namespace tessera;

// Exit status of a run stopped by a non-positive density or pressure (2 is bad input).
constexpr int kStopped = 3;

// The largest signal speed and a fault flag, reduced by max over blocks and ranks.
using SpeedAndFault = std::array<double, 2>;

/// The mesh, the state and the tasks of one run.
class Simulation {
 public:
  Simulation(Session& session, const Options& o)
      : session_(session),
        o_(o),
        scheme_(make_scheme(o)),
        problem_(o.problem, o.dim, o.axis, scheme_.gas, Problem::defaults(o.problem).length,
                 o.kappa),
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

  const Scheme& scheme() const { return scheme_; }
  const UniformMesh& mesh() const { return mesh_; }
  BlockField& state() { return u_; }
  std::int64_t cells() const { return product(mesh_.cells()); }

  /// Sets the initial state (tasks; no wait).
  void submit_initial() {
    session_.exec().begin_phase("init");
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "init", {write(u_.interior(b))},
          [this, b, u = u_.data(b)] {
            fill_initial(u_.layout(), scheme_, problem_, corners_[b], u);
          },
          attributes(b));
    }
    session_.exec().end_phase();
  }

  /// Scans U for the signal speed (the first cycle's dt; a restart's). Collective; waits.
  /// Returns false if a cell is not physical (printed).
  bool scan(int cycle, double t) {
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

  /// The next dt: cfl min dx / the largest signal speed, clipped to --max-dt and to
  /// t_end - t.
  double next_dt(double t) const {
    // Skipped bodies (a simulation, docs/scaling-sim.md): no speed was computed; the step
    // is --max-dt (validate() requires one).
    if (compute_bodies_skipped()) return t + o_.max_dt >= o_.t_end ? o_.t_end - t : o_.max_dt;
    double dx = scheme_.dx[0];
    for (int a = 1; a < o_.dim; ++a) dx = std::fmin(dx, scheme_.dx[a]);
    double dt = o_.cfl * dx / speed_[0];
    if (o_.max_dt > 0) dt = std::fmin(dt, o_.max_dt);
    return t + dt >= o_.t_end ? o_.t_end - t : dt;
  }

  /// One cycle of dt; waits for its max reduction. Returns false if it produced a cell
  /// that is not physical or the radiation solve did not converge (printed).
  bool cycle(double dt, int cycle, double t) {
    dt_ = dt;
    if (r_) return imex_cycle(dt, cycle, t);
    if (erad_ && !radiation_step(u_, u_, dt, cycle, t, true)) return false;
    run_stages(stages_, cycle, [this] { submit_stages(); });
    return finish_reduction(cycle, t);
  }

  /// Totals and checksum of U over all ranks (collective; waits).
  struct Sums {
    std::array<double, 6> totals{};
    double checksum = 0;
  };
  Sums sums() {
    BlockSums all;
    const Handle h = session_.runtime().create_reduction_handle(
        "sums", &all, [](BlockSums& total, const BlockSums& part) {
          for (std::size_t v = 0; v < total.totals.size(); ++v) total.totals[v].add(part.totals[v]);
          total.checksum.add(part.checksum);
        });
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "sums", {read(u_.interior(b)), reduce(h)},
          [this, u = u_.data(b), h](TaskContext& ctx) {
            add_sums(u_.layout(), scheme_, u, ctx.reduction_slot<BlockSums>(h));
          },
          block_work());
    }
    for (auto& total : all.totals) session_.comm().iallreduce_sum(h, &total);
    session_.comm().iallreduce_sum(h, &all.checksum);
    session_.runtime().wait_for(h);
    Sums out;
    for (std::size_t v = 0; v < out.totals.size(); ++v) out.totals[v] = all.totals[v].value();
    out.checksum = all.checksum.value();
    return out;
  }

  /// The mean |error| over all cells of rho, the velocity along the axis and p against the
  /// problem's reference at t (collective; waits).
  std::optional<std::array<double, 3>> errors(double t) {
    if (!problem_.has_reference()) return std::nullopt;
    std::array<ExactSum, 3> all;
    const Handle h = session_.runtime().create_reduction_handle(
        "errors", &all, [](std::array<ExactSum, 3>& total, const std::array<ExactSum, 3>& part) {
          for (int q = 0; q < 3; ++q) total[q].add(part[q]);
        });
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "errors", {read(u_.interior(b)), reduce(h)},
          [this, b, t, u = u_.data(b), h](TaskContext& ctx) {
            add_errors(u_.layout(), scheme_, problem_, corners_[b], t, u,
                       ctx.reduction_slot<std::array<ExactSum, 3>>(h));
          },
          block_work());
    }
    for (auto& e : all) session_.comm().iallreduce_sum(h, &e);
    session_.runtime().wait_for(h);
    std::array<double, 3> out;
    for (int q = 0; q < 3; ++q) out[q] = all[q].value() / static_cast<double>(cells());
    return out;
  }

  const Problem& problem() const { return problem_; }

  /// Radiation solver statistics: sweeps over all cycles, the most in one cycle, the last
  /// cycle's relative residual.
  std::int64_t rad_sweeps_total() const { return rad_sweeps_total_; }
  int rad_sweeps_max() const { return rad_sweeps_max_; }
  double rad_residual() const { return rad_residual_; }

  /// The mean over all cells of |T - T_ref| / T_ref and |E_r - E_ref| / (E_ref's peak)
  /// against the radiation reference at t, and the largest |E_r - E_ref| / (E_ref's peak)
  /// (collective; waits).
  std::optional<std::array<double, 3>> radiation_errors(double t) {
    if (!erad_ || !problem_.has_radiation_reference()) return std::nullopt;
    problem_.prepare(t);
    struct Errors {
      std::array<ExactSum, 2> sums;
      double max = 0;
    };
    Errors all;
    const Handle h = session_.runtime().create_reduction_handle(
        "rad-errors", &all, [](Errors& total, const Errors& part) {
          total.sums[0].add(part.sums[0]);
          total.sums[1].add(part.sums[1]);
          total.max = std::fmax(total.max, part.max);
        });
    const double half = 0.5 * Problem::defaults(o_.problem).length;
    const double scale = problem_.name() == "gaussian-pulse"
                             ? problem_.radiation_reference({half, half, half}, 0)[1]
                         : problem_.name() == "marshak" ? Problem::defaults(o_.problem).incident_er
                                                        : problem_.radiation_reference({}, t)[1];
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "rad-errors", {read(u_.interior(b)), reduce(h)},
          [this, b, t, scale, u = u_.data(b), h](TaskContext& ctx) {
            auto& part = ctx.reduction_slot<Errors>(h);
            const Int3 n = u_.layout().cells();
            for (int k = 0; k < n.z; ++k) {
              for (int j = 0; j < n.y; ++j) {
                for (int i = 0; i < n.x; ++i) {
                  const std::array<double, 3> x = cell_centre(corners_[b], scheme_, i, j, k);
                  const auto ref = problem_.radiation_reference(x, t);
                  const CellPrimitive w = cell_primitive(u_.layout(), scheme_, u, i, j, k);
                  const double er = std::abs(w.er - ref[1]) / scale;
                  part.sums[0].add(std::abs(w.temperature - ref[0]) / ref[0]);
                  part.sums[1].add(er);
                  part.max = std::fmax(part.max, er);
                }
              }
            }
          },
          block_work());
    }
    for (auto& e : all.sums) session_.comm().iallreduce_sum(h, &e);
    session_.comm().iallreduce(h, &all.max, 1, MPI_DOUBLE, MPI_MAX);
    session_.runtime().wait_for(h);
    return std::array<double, 3>{all.sums[0].value() / static_cast<double>(cells()),
                                 all.sums[1].value() / static_cast<double>(cells()), all.max};
  }

  /// rad-shock's states reached: the means of {rho, u along the axis, T, E_r} over the
  /// cells in the first and the last kJumpFraction of the domain along the axis (far from
  /// the shock at the centre and its radiative precursor), upstream [0] and downstream [1]
  /// (collective; waits).
  std::optional<std::array<std::array<double, 4>, 2>> jump_states() {
    if (!problem_.has_jump_reference()) return std::nullopt;
    constexpr double kJumpFraction = 0.2;
    using Sides = std::array<ExactSum, 10>;  // 4 means and a count per side
    Sides all;
    const Handle h = session_.runtime().create_reduction_handle(
        "jump-states", &all, [](Sides& total, const Sides& part) {
          for (std::size_t q = 0; q < total.size(); ++q) total[q].add(part[q]);
        });
    const int axis = problem_.axis();
    const double length = Problem::defaults(o_.problem).length;
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "jump-states", {read(u_.interior(b)), reduce(h)},
          [this, b, axis, length, u = u_.data(b), h](TaskContext& ctx) {
            auto& sums = ctx.reduction_slot<Sides>(h);
            const Int3 n = u_.layout().cells();
            for (int k = 0; k < n.z; ++k) {
              for (int j = 0; j < n.y; ++j) {
                for (int i = 0; i < n.x; ++i) {
                  const double x = cell_centre(corners_[b], scheme_, i, j, k)[axis];
                  const int side = x < kJumpFraction * length         ? 0
                                   : x > (1 - kJumpFraction) * length ? 1
                                                                      : -1;
                  if (side < 0) continue;
                  const CellPrimitive w = cell_primitive(u_.layout(), scheme_, u, i, j, k);
                  const std::array<double, 3> v{w.vx, w.vy, w.vz};
                  const std::array<double, 5> q{w.rho, v[axis], w.temperature, w.er, 1};
                  for (int m = 0; m < 5; ++m) sums[5 * side + m].add(q[m]);
                }
              }
            }
          },
          block_work());
    }
    for (auto& e : all) session_.comm().iallreduce_sum(h, &e);
    session_.runtime().wait_for(h);
    std::array<std::array<double, 4>, 2> out{};
    for (int side = 0; side < 2; ++side) {
      for (int m = 0; m < 4; ++m)
        out[side][m] = all[5 * side + m].value() / all[5 * side + 4].value();
    }
    return out;
  }

  /// Rank 0 writes the lineout CSV along x through the domain centre (collective; all
  /// tasks must be done).
  void write_lineout(const std::string& file) {
    const Int3 cells = mesh_.cells();
    const int jc = cells.y / 2, kc = cells.z / 2;
    std::vector<double> rows;
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      const Int3 origin = mesh_.cell_origin(b);
      const Int3 n = mesh_.block_cells();
      if (jc < origin.y || jc >= origin.y + n.y || kc < origin.z || kc >= origin.z + n.z) continue;
      for (int i = 0; i < n.x; ++i) {
        const CellPrimitive w =
            cell_primitive(u_.layout(), scheme_, u_.data(b), i, jc - origin.y, kc - origin.z);
        rows.insert(rows.end(), {corners_[b][0] + (i + 0.5) * scheme_.dx[0], w.rho, w.vx, w.vy,
                                 w.vz, w.p, w.temperature, w.er});
      }
    }
    int count = static_cast<int>(rows.size());
    std::vector<int> counts(session_.size()), offsets(session_.size());
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < session_.size(); ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    std::vector<double> all(session_.rank() == 0 ? total : 0);
    MPI_Gatherv(rows.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(),
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (session_.rank() != 0) return;
    std::vector<std::array<double, 8>> lines(total / 8);
    for (std::size_t l = 0; l < lines.size(); ++l) {
      std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(8 * l), 8, lines[l].begin());
    }
    std::sort(lines.begin(), lines.end());
    std::string csv = "x,rho,vx,vy,vz,p,T,Er\n";
    for (const auto& l : lines) csv += fmt::format("{:.17g}\n", fmt::join(l, ","));
    write_file_atomically(file, csv);
  }

 private:
  static Scheme make_scheme(const Options& o) {
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

  static UniformMesh make_mesh(Session& session, const Options& o) {
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

  // A block task's priority and tags; its work (simulated runs' modelled compute,
  // docs/scaling-sim.md) is the block's cells unless given.
  TaskAttributes attributes(LocalBlockIndex b, std::int64_t work = 0) const {
    const MeshBlock& mb = mesh_.local_block(b);
    TaskAttributes a(
        mb.is_skeleton(HaloShape::faces) ? session_.exec().skeleton_priority() : Priority::normal,
        {mb.id});
    a.work = work > 0 ? work : product(mesh_.block_cells());
    return a;
  }

  // Work of a reduction task over one block (no priority): its cells.
  TaskAttributes block_work() const {
    TaskAttributes a;
    a.work = product(mesh_.block_cells());
    return a;
  }

  // Ghosts of `field`: the exchange with the neighbour blocks, then the domain faces.
  void fill_ghosts(BlockField& field) { fill_ghosts(field, halo_, scheme_); }
  void fill_ghosts(BlockField& field, HaloExchange& halo, const Scheme& scheme) {
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

  void submit_stages() {
    submit_stage(u_, s_, nullptr, 0);
    submit_stage(s_, u_, &u_, 1);
  }

  // Submits the tasks `submit` submits; under replay records them into `graph` the first
  // time and replays the recording (the tasks read dt from dt_ when they run, so they are
  // the same tasks every cycle).
  template <class Submit>
  void run_stages(IterationGraph& graph, int cycle, Submit&& submit) {
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

  // One IMEX-SSP2(2,2,2) cycle (docs/apps/radhydro.md, "Coupling"): the implicit stage
  // Y1 = U + g dt G(Y1) into S; its explicit stage (U becomes U + (dt K(Y1) + dt G(Y1)) / 2,
  // R the second implicit stage's input); Y2 = R + g dt G(Y2) into S; the second explicit
  // stage completes U. G is the radiation step (diffusion solve, then exchange) over g dt.
  bool imex_cycle(double dt, int cycle, double t) {
    if (!radiation_step(u_, s_, kImexGamma * dt, cycle, t, true)) return false;
    run_stages(imex_stages_[0], cycle, [this] { submit_imex_stage(0); });
    if (!radiation_step(*r_, s_, kImexGamma * dt, cycle, t, false)) return false;
    run_stages(imex_stages_[1], cycle, [this] { submit_imex_stage(1); });
    return finish_reduction(cycle, t);
  }

  // IMEX's explicit stage `stage` from S (the implicit stage's solution) with dt_: stage 0
  // reads U^n (the implicit input) and writes U's partial sum and R; stage 1 reads R (its
  // implicit input) and completes U, with the signal-speed scan of U into the block's slot.
  void submit_imex_stage(int stage) {
    fill_ghosts(s_);
    session_.exec().begin_phase(stage == 0 ? "imex-stage1" : "imex-stage2");
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      std::vector<Access> access{read(s_.interior(b)), read(s_.ghosts(b)),
                                 readwrite(u_.interior(b))};
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

  // Stage `stage` with dt_ (0: dst = src + dt K(src); 1: dst = (base + src + dt K(src)) / 2,
  // and the signal-speed scan of dst into the block's slot).
  void submit_stage(BlockField& src, BlockField& dst, BlockField* base, int stage) {
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

  // The radiation step over dt from `src` into `dst` (may be src): per block, the
  // diffusion system from src; Jacobi sweeps (a fixed count, or until the relative
  // residual reaches --rad-tolerance) or V-cycles; src with the new E_r into dst and the
  // implicit exchange per cell. False if the solve did not converge (printed on rank 0);
  // exchange faults reach the cycle's fault flag (`first`: the cycle's first step, which
  // clears it).
  bool radiation_step(BlockField& src, BlockField& dst, double dt, int cycle, double t,
                      bool first) {
    fill_ghosts(src);
    Exec& exec = session_.exec();
    exec.begin_phase("rad-setup");
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      std::vector<Access> access{read(src.ghosts(b)), read(src.interior(b)),
                                 write(coef_->interior(b)), write(erad_->interior(b))};
      session_.runtime().submit(
          "rad-setup", std::span<const Access>(access),
          [this, u = src.data(b), coef = coef_->data(b), e = erad_->data(b), dt,
           lit = faces_[b][2 * rad_.incident_axis].has_value()] {
            setup_diffusion(u_.layout(), scheme_, rad_, dt, u, coef_->layout(), coef, lit);
            finish_setup(u_.layout(), u, coef_->layout(), coef, erad_->layout(), e);
          },
          attributes(b));
    }
    exec.end_phase();
    if (!(mg_ ? multigrid_solve(cycle, t) : jacobi_solve(cycle, t))) return false;
    submit_store_and_exchange(src, dst, dt, first);
    return true;
  }

  // Damped-Jacobi sweeps on the system rad-setup wrote, the solution in erad_.
  // Under replay, a fixed even number of sweeps runs as that many halves of a recorded pair
  // of sweeps (E_r -> erad2_ -> E_r, so erad_ keeps the iterate); otherwise sweeps are
  // submitted one by one (with --rad-sweeps 0 each followed by the residual's reduction,
  // which a recording cannot hold).
  bool jacobi_solve(int cycle, double t) {
    int sweeps = 0;
    double residual = o_.rad_sweeps > 0 ? 0 : rad_residual_check(one_);
    const int limit = o_.rad_sweeps > 0 ? o_.rad_sweeps : o_.rad_max_iterations;
    if (replay_ && o_.rad_sweeps >= 2 && o_.rad_sweeps % 2 == 0) {
      Runtime& runtime = session_.runtime();
      if (sweep_pair_.empty()) {
        runtime.begin_recording();
        submit_sweep(*erad_, *erad2_);
        submit_sweep(*erad2_, *erad_);
        sweep_pair_ = runtime.end_recording();
      }
      runtime.replay(sweep_pair_, sweep_pairs_replayed_, o_.rad_sweeps / 2);
      sweep_pairs_replayed_ += o_.rad_sweeps / 2;
      sweeps = o_.rad_sweeps;
    }
    while (sweeps < limit && (o_.rad_sweeps > 0 || residual > o_.rad_tolerance)) {
      submit_sweep(*erad_, *erad2_);
      std::swap(erad_, erad2_);
      ++sweeps;
      if (o_.rad_sweeps == 0) residual = rad_residual_check(one_);
    }
    if (o_.rad_sweeps > 0) residual = rad_residual_check(one_);
    rad_sweeps_total_ += sweeps;
    rad_sweeps_max_ = std::max(rad_sweeps_max_, sweeps);
    return converged(residual, cycle, t);
  }

  // One damped-Jacobi sweep from `in` (its ghosts filled first) into `out`'s interior.
  void submit_sweep(BlockField& in, BlockField& out) {
    fill_ghosts(in, *rad_halo_, one_);
    session_.exec().begin_phase("rad-sweep");
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "rad-sweep",
          {read(coef_->interior(b)), read(in.interior(b)), read(in.ghosts(b)),
           write(out.interior(b))},
          [this, coef = coef_->data(b), from = in.data(b), to = out.data(b)] {
            jacobi_sweep(erad_->layout(), coef_->layout(), coef, rad_.omega, scheme_.dim, from, to);
          },
          attributes(b));
    }
    session_.exec().end_phase();
  }

  // Records a solve's iterations and residual; false (printed on rank 0) if it missed its
  // tolerance.
  bool converged(double residual, int cycle, double t) {
    rad_residual_ = residual;
    if (o_.rad_sweeps > 0 || residual <= o_.rad_tolerance) return true;
    if (session_.rank() == 0) {
      std::fprintf(stderr,
                   "radhydro: error: cycle %d (t = %.9g): the radiation solve reached the "
                   "relative residual %.6e, not --rad-tolerance %g, within "
                   "--rad-max-iterations %d\n",
                   cycle, t, residual, o_.rad_tolerance, o_.rad_max_iterations);
    }
    return false;
  }

  // src's interior with E_r from the solve into dst, and the implicit exchange per cell
  // (faults reach the cycle's flag; a later step of the cycle keeps an earlier fault).
  void submit_store_and_exchange(BlockField& src, BlockField& dst, double dt, bool first) {
    Exec& exec = session_.exec();
    exec.begin_phase("rad-store");
    const bool copy = &src != &dst;
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      std::vector<Access> access{read(erad_->interior(b)), write(speed_slots_[b])};
      if (copy) {
        access.push_back(read(src.interior(b)));
        access.push_back(write(dst.interior(b)));
      } else {
        access.push_back(readwrite(dst.interior(b)));
      }
      session_.runtime().submit(
          "rad-store", std::span<const Access>(access),
          [this, b, dt, first, e = erad_->data(b), from = src.data(b), u = dst.data(b),
           layout = &dst.layout()] {
            if (from != u) copy_region(*layout, from, layout->interior(), u, layout->interior());
            store_radiation(erad_->layout(), e, *layout, u);
            CellFault& fault = faults_[3 * b + 2];
            if (first) fault = {};
            if (rad_.exchange && !fault.bad) {
              exchange_energy(*layout, scheme_, rad_, dt, u, fault, !first);
            }
          },
          attributes(b));
    }
    exec.end_phase();
  }

  // The multigrid solve of the system rad-setup wrote: V-cycles (--rad-sweeps of them, or
  // until --rad-tolerance), then E_r and the exchange as in radiation_step.
  bool multigrid_solve(int cycle, double t) {
    Exec& exec = session_.exec();
    exec.begin_phase("mg-load");
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      std::vector<Access> access{read(coef_->interior(b)), read(erad_->interior(b)),
                                 write(mg_->e().interior(b)), write(mg_->b().interior(b))};
      std::array<double*, 6> c{};
      std::array<bool, 6> closed{};
      for (int f = 0; f < 6; ++f) {
        access.push_back(write(mg_->coupling(f).interior(b)));
        c[f] = mg_->coupling(f).data(b);
        closed[f] = mg_->closed_face(b, f);
      }
      session_.runtime().submit(
          "mg-load", std::span<const Access>(access),
          [this, c, closed, coef = coef_->data(b), e = erad_->data(b), me = mg_->e().data(b),
           mb = mg_->b().data(b), ml = &mg_->e().layout()] {
            const BlockLayout& cl = coef_->layout();
            const BlockLayout& el = erad_->layout();
            const Int3 n = ml->cells();
            for (int k = 0; k < n.z; ++k) {
              for (int j = 0; j < n.y; ++j) {
                for (int i = 0; i < n.x; ++i) {
                  const std::ptrdiff_t at = ml->index(0, i, j, k);
                  const std::ptrdiff_t from = cl.index(0, i, j, k);
                  const Int3 cell{i, j, k};
                  for (int f = 0; f < 6; ++f) {
                    const bool boundary_cell =
                        f % 2 == 0 ? cell[f / 2] == 0 : cell[f / 2] == n[f / 2] - 1;
                    c[f][at] = closed[f] && boundary_cell ? 0.0 : coef[from + f * cl.stride_var()];
                  }
                  mb[at] = coef[from + (kDiffusionVars - 1) * cl.stride_var()];
                  me[at] = e[el.index(0, i, j, k)];
                }
              }
            }
          },
          attributes(b));
    }
    exec.end_phase();
    mg_->submit_coarsen();
    const int limit = o_.rad_sweeps > 0 ? o_.rad_sweeps : o_.rad_max_iterations;
    int cycles = 0;
    double residual = o_.rad_sweeps > 0 ? 0 : mg_->residual();
    // A V-cycle that works at least halves the residual; kStallCycles of them without
    // halving the best one means round-off is reached above the tolerance, and more cycles
    // (up to --rad-max-iterations) would only waste time. The residual is an all-reduce:
    // every rank stops at the same cycle.
    constexpr int kStallCycles = 10;
    double best = residual;
    int best_at = 0;
    bool stalled = false;
    while (cycles < limit && (o_.rad_sweeps > 0 || residual > o_.rad_tolerance)) {
      mg_->submit_v_cycle();
      ++cycles;
      if (o_.rad_sweeps > 0) continue;
      residual = mg_->residual();
      if (residual <= 0.5 * best) {
        best = residual;
        best_at = cycles;
      } else if (cycles - best_at >= kStallCycles && residual > o_.rad_tolerance) {
        stalled = true;
        break;
      }
    }
    if (o_.rad_sweeps > 0) residual = mg_->residual();
    rad_sweeps_total_ += cycles;
    rad_sweeps_max_ = std::max(rad_sweeps_max_, cycles);
    if (stalled) {
      rad_residual_ = residual;
      if (session_.rank() == 0) {
        std::fprintf(stderr,
                     "radhydro: error: cycle %d (t = %.9g): the radiation solve stalled at the "
                     "relative residual %.6e after %d V-cycles (%d without halving it), above "
                     "--rad-tolerance %g: round-off allows no smaller residual here; raise "
                     "--rad-tolerance\n",
                     cycle, t, residual, cycles, kStallCycles, o_.rad_tolerance);
      }
      return false;
    }
    if (!converged(residual, cycle, t)) return false;
    exec.begin_phase("mg-store");
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "mg-store", {read(mg_->e().interior(b)), write(erad_->interior(b))},
          [this, me = mg_->e().data(b), e = erad_->data(b), ml = &mg_->e().layout()] {
            const Int3 n = ml->cells();
            for (int k = 0; k < n.z; ++k) {
              for (int j = 0; j < n.y; ++j) {
                for (int i = 0; i < n.x; ++i) {
                  e[erad_->layout().index(0, i, j, k)] = me[ml->index(0, i, j, k)];
                }
              }
            }
          },
          attributes(b));
    }
    exec.end_phase();
    return true;
  }

  // ||(b - A E) / diag(A)|| / ||E|| of the current iterate over all ranks (collective;
  // waits).
  double rad_residual_check(const Scheme& one) {
    fill_ghosts(*erad_, *rad_halo_, one);
    session_.exec().begin_phase("rad-residual");
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "rad-residual",
          {read(coef_->interior(b)), read(erad_->interior(b)), read(erad_->ghosts(b)),
           reduce(residual_handle_)},
          [this, coef = coef_->data(b), e = erad_->data(b),
           h = residual_handle_](TaskContext& ctx) {
            auto& sums = ctx.reduction_slot<std::array<ExactSum, 2>>(h);
            add_residual_squares(erad_->layout(), coef_->layout(), coef, scheme_.dim, e, sums[0],
                                 sums[1]);
          },
          attributes(b));
    }
    session_.exec().end_phase();
    session_.comm().iallreduce_sum(residual_handle_, &residual_sums_[0]);
    session_.comm().iallreduce_sum(residual_handle_, &residual_sums_[1]);
    session_.runtime().wait_for(residual_handle_);
    const double r = residual_sums_[0].value(), b = residual_sums_[1].value();
    residual_sums_ = {};
    return b > 0 ? std::sqrt(r / b) : std::sqrt(r);
  }

  // The max reduction over ranks, then the faults: false (and the faulting blocks
  // printed by their ranks) if any.
  bool finish_reduction(int cycle, double t) {
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
                     static_cast<long long>(mesh_.local_block(b).id), f.cell[0], f.cell[1],
                     f.cell[2], session_.rank());
        break;
      }
    }
    if (speed_[1] == 0 && session_.rank() == 0) {
      std::fprintf(stderr, "radhydro: error: cycle %d (t = %.9g): the signal speed is %g\n", cycle,
                   t, speed_[0]);
    }
    return false;
  }

  Session& session_;
  const Options& o_;
  Scheme scheme_;
  Problem problem_;
  UniformMesh mesh_;
  BlockField u_, s_;
  HaloPlan plan_;
  HaloExchange halo_;
  std::vector<std::array<std::optional<Boundary>, 6>> faces_;
  std::vector<Corner> corners_;
  // Per block: the faults of stage 1, of stage 2 (or the scan), of the radiation exchange.
  std::vector<CellFault> faults_;
  SpeedAndFault speed_{};
  Handle speed_handle_;
  // Per block: the largest signal speed its last stage 2 (or scan) found, behind a handle
  // each, so the stages need no reduction access (reductions cannot be recorded).
  std::vector<double> block_speed_;
  std::vector<Handle> speed_slots_;
  double dt_ = 0;
  bool replay_ = false;
  IterationGraph stages_;
  std::array<IterationGraph, 2> imex_stages_;
  Radiation rad_;
  // Radiation: the Jacobi iterates (swapped after each sweep), the system per block.
  std::unique_ptr<BlockField> erad_, erad2_, coef_;
  // IMEX: the second implicit stage's input (null under --coupling split).
  std::unique_ptr<BlockField> r_;
  // The scheme of the one-variable iterate (its boundary tasks keep a reference to it).
  Scheme one_;
  IterationGraph sweep_pair_;
  std::int64_t sweep_pairs_replayed_ = 0;
  std::unique_ptr<HaloExchange> rad_halo_;
  std::unique_ptr<RadiationMultigrid> mg_;
  std::array<ExactSum, 2> residual_sums_;
  Handle residual_handle_;
  std::int64_t rad_sweeps_total_ = 0;
  int rad_sweeps_max_ = 0;
  double rad_residual_ = 0;
};

nlohmann::json totals_json(const Simulation::Sums& s, bool radiation) {
  nlohmann::json j = {{"mass", s.totals[0]},
                      {"momentum", {s.totals[1], s.totals[2], s.totals[3]}},
                      {"energy", s.totals[4] + (radiation ? s.totals[5] : 0.0)},
                      {"gas_energy", s.totals[4]}};
  if (radiation) j["radiation_energy"] = s.totals[5];
  return j;
}

int run(int argc, char** argv) {
  Session session(argc, argv, "radhydro",
                  "radiation hydrodynamics as HARD: WENO5-Z + HLL + SSP-RK2 hydro");
  Options o;
  declare_options(session.option_registry(), o);
  session.start();
  std::unique_ptr<CheckpointReader> restart = open_restart(session, o.checkpoint, "radhydro");
  validate(session, o);

  std::unique_ptr<Simulation> sim;
  try {
    sim = std::make_unique<Simulation>(session, o);
  } catch (const std::invalid_argument& e) {
    session.fail("--cells/--block-cells", e.what());
  }
  const bool radiation = o.radiation_on;
  session.progress(
      "radhydro: {} {}-D along {}, cells {}, blocks of {}, {} on {} rank(s) x {} "
      "thread(s)",
      o.problem, o.dim, o.axis_name, fmt::join(o.cells, " x "), fmt::join(o.block_cells, " x "),
      to_string(session.exec().model()), session.size(), session.runtime().threads());

  sim->submit_initial();
  session.exec().barrier();
  session.set_phase("run");
  Simulation::Sums start_sums = sim->sums();
  std::unique_ptr<CheckpointWriter> writer;
  if (o.checkpoint.every > 0) {
    writer = std::make_unique<CheckpointWriter>(session.comm(), o.checkpoint);
  }
  int cycle = 0;
  double t = 0;
  CheckpointRestore restored;
  if (restart) {
    restored = restore_checkpoint(session, *restart, [&] {
      read_whole_blocks(*restart, "U", sim->state());
      cycle = static_cast<int>(restart->header().step);
      t = restart->header().time;
      const auto& st = restart->header().state;
      for (int v = 0; v < 6; ++v) start_sums.totals[v] = st.at("totals_start").at(v).get<double>();
      start_sums.checksum = st.at("checksum_start").get<double>();
    });
    restored.restarted_from = cycle;
    session.progress("radhydro: restarted from {} (cycle {}, t = {:.9g}) on {} rank(s)",
                     restart->file(), cycle, t, session.size());
    restart.reset();
  }
  int checkpointed = cycle;
  const auto submit_checkpoint = [&] {
    CheckpointHeader header;
    header.app = "radhydro";
    header.problem = session.option_registry().problem();
    header.step = cycle;
    header.time = t;
    header.state = {{"totals_start", start_sums.totals}, {"checksum_start", start_sums.checksum}};
    writer->submit(header, checkpoint_blocks(sim->mesh()), {whole_block_field("U", sim->state())});
    session.progress("radhydro: checkpoint of cycle {} submitted", cycle);
    checkpointed = cycle;
  };

  MPI_Barrier(MPI_COMM_WORLD);
  const double loop_start = MPI_Wtime();
  const int first_cycle = cycle;
  bool ok = sim->scan(cycle, t);
  double dt = 0;
  while (ok && t < o.t_end && (o.max_cycles == 0 || cycle < o.max_cycles)) {
    dt = sim->next_dt(t);
    ok = sim->cycle(dt, cycle + 1, t);
    if (!ok) break;
    t = t + dt >= o.t_end ? o.t_end : t + dt;
    ++cycle;
    if (cycle % o.progress_every == 0) {
      session.progress("cycle {:>6}  t {:.6e}  dt {:.6e}", cycle, t, dt);
    }
    if (writer && cycle / o.checkpoint.every > checkpointed / o.checkpoint.every) {
      submit_checkpoint();
    }
  }
  if (writer) writer->wait();
  double loop_s = MPI_Wtime() - loop_start;
  MPI_Allreduce(MPI_IN_PLACE, &loop_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (!ok) return kStopped;

  const Simulation::Sums end_sums = sim->sums();
  const auto errors = sim->errors(t);
  const auto rad_errors = sim->radiation_errors(t);
  const auto jump = sim->jump_states();
  if (!o.lineout.empty()) {
    session.exec().barrier();
    sim->write_lineout(o.lineout);
  }
  const double zone_cycles =
      static_cast<double>(sim->cells()) * (cycle - first_cycle) / std::fmax(loop_s, 1e-300);
  nlohmann::json fields = {
      {"checksum", hex_bits(end_sums.checksum)},
      {"checksum_value", end_sums.checksum},
      {"problem", o.problem},
      {"dim", o.dim},
      {"axis", o.axis_name},
      {"cells", o.cells},
      {"block_cells", o.block_cells},
      {"radiation", radiation},
      {"face_state", o.face_state},
      {"gamma", o.gamma},
      {"mu", o.mu},
      {"cfl", o.cfl},
      {"t_end", o.t_end},
      {"cycles", cycle},
      {"t", t},
      {"t_hex", hex_bits(t)},
      {"dt_last", dt},
      {"loop_s", loop_s},
      {"zone_cycles_per_s", zone_cycles},
      {"totals_start", totals_json(start_sums, radiation)},
      {"totals_end", totals_json(end_sums, radiation)},
      {"totals_end_hex",
       {hex_bits(end_sums.totals[0]), hex_bits(end_sums.totals[1]), hex_bits(end_sums.totals[2]),
        hex_bits(end_sums.totals[3]), hex_bits(end_sums.totals[4])}},
      {"checkpoint", checkpoint_report(writer.get(), restored)},
  };
  if (radiation) {
    fields["kappa"] = o.kappa;
    fields["rad_solver"] = o.rad_solver;
    fields["rad_sweeps"] = o.rad_sweeps;
    fields["rad_tolerance"] = o.rad_tolerance;
    fields["rad_theta"] = o.coupling == "imex" ? 1.0 : o.rad_theta;
    fields["coupling"] = o.coupling;
    fields["exchange"] = o.exchange_on;
    fields["radiation_force"] = o.radiation_force_on;
    fields["flux_limiter"] = o.limiter_on ? "lp" : "none";
    fields["rad_iterations"] = sim->rad_sweeps_total();
    fields["rad_iterations_per_cycle"] =
        cycle > first_cycle ? static_cast<double>(sim->rad_sweeps_total()) / (cycle - first_cycle)
                            : 0.0;
    fields["rad_iterations_max"] = sim->rad_sweeps_max();
    fields["rad_residual"] = sim->rad_residual();
    fields["totals_end_hex"].push_back(hex_bits(end_sums.totals[5]));
  }
  if (rad_errors) {
    fields["l1_t"] = (*rad_errors)[0];
    fields["l1_er"] = (*rad_errors)[1];
    fields["linf_er"] = (*rad_errors)[2];
    if (o.problem == "marshak") fields["tau"] = marshak_tau(t, o.kappa);
  }
  if (jump) {
    // Reached and reference states and their relative differences per side.
    const auto ref = sim->problem().jump_reference();
    const char* names[] = {"rho", "u", "T", "Er"};
    nlohmann::json j;
    std::array<double, 2> worst{};  // rho, u, T only (E_r upstream carries the precursor)
    for (int side = 0; side < 2; ++side) {
      nlohmann::json reached, reference, error;
      for (int m = 0; m < 4; ++m) {
        const double rel = std::abs((*jump)[side][m] - ref[side][m]) / ref[side][m];
        reached[names[m]] = (*jump)[side][m];
        reference[names[m]] = ref[side][m];
        error[names[m]] = rel;
        if (m < 3) worst[side] = std::fmax(worst[side], rel);
      }
      const std::string where = side == 0 ? "upstream" : "downstream";
      j[where] = reached;
      j[where + "_reference"] = reference;
      j[where + "_rel_error"] = error;
    }
    fields["jump"] = j;
    session.say(
        "radhydro: jump states reached (relative to Moens et al.'s): rho, u, T within {:.3e} "
        "upstream, {:.3e} downstream; E_r {:.3e} upstream, {:.3e} downstream",
        worst[0], worst[1], j["upstream_rel_error"]["Er"].get<double>(),
        j["downstream_rel_error"]["Er"].get<double>());
  }
  if (errors) {
    fields["l1_rho"] = (*errors)[0];
    fields["l1_vx"] = (*errors)[1];
    fields["l1_p"] = (*errors)[2];
  }
  if (rad_errors) {
    session.say(
        "radhydro: radiation: {} sweeps in all, residual {:.3e}; L1 T {:.4e} E_r {:.4e} "
        "(relative)",
        sim->rad_sweeps_total(), sim->rad_residual(), (*rad_errors)[0], (*rad_errors)[1]);
  }
  session.say(
      "radhydro: {} {}-D {} cells, {} cycles to t = {:.6g}: checksum {}{}; {:.3g} "
      "zone-cycles/s",
      o.problem, o.dim, sim->cells(), cycle, t, hex_bits(end_sums.checksum),
      errors ? fmt::format(", L1 rho {:.4e} v {:.4e} p {:.4e}", (*errors)[0], (*errors)[1],
                           (*errors)[2])
             : std::string(),
      zone_cycles);
  session.finish(std::move(fields));
  return 0;
}

}  // namespace
}  // namespace radhydro

int main(int argc, char** argv) {
  return tessera::run_guarded([&] { return radhydro::run(argc, argv); });
}
