// radhydro's radiation step (simulation.hpp): the implicit diffusion system per block, its
// solve by damped-Jacobi sweeps (recorded in pairs under replay) or multigrid V-cycles to a
// fixed count or a relative residual, and the store of E_r with the implicit gas-radiation
// exchange per cell.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <utility>
#include <vector>

#include "simulation.hpp"

namespace radhydro {

using namespace tessera;

bool Simulation::radiation_step(BlockField& src, BlockField& dst, double dt, int cycle, double t,
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

bool Simulation::jacobi_solve(int cycle, double t) {
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

void Simulation::submit_sweep(BlockField& in, BlockField& out) {
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

bool Simulation::converged(double residual, int cycle, double t) {
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

void Simulation::submit_store_and_exchange(BlockField& src, BlockField& dst, double dt,
                                           bool first) {
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

bool Simulation::multigrid_solve(int cycle, double t) {
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

double Simulation::rad_residual_check(const Scheme& one) {
  fill_ghosts(*erad_, *rad_halo_, one);
  session_.exec().begin_phase("rad-residual");
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().submit(
        "rad-residual",
        {read(coef_->interior(b)), read(erad_->interior(b)), read(erad_->ghosts(b)),
         reduce(residual_handle_)},
        [this, coef = coef_->data(b), e = erad_->data(b), h = residual_handle_](TaskContext& ctx) {
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

}  // namespace radhydro
