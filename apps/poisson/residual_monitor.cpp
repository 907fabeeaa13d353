#include "residual_monitor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera::poisson {

ResidualMonitor::ResidualMonitor(Session& session, GridLevel& finest)
    : session_(session), finest_(finest) {
  Runtime& runtime = session.runtime();
  handle_ = runtime.create_reduction_handle("residual", &sum_, add_exact);
  ExactSum rhs;
  const Handle h = runtime.create_reduction_handle("rhs-norm", &rhs, add_exact);
  BlockField& f = finest.f();
  for (LocalBlockIndex b = 0; b < finest.mesh().local_block_count(); ++b) {
    runtime.submit("rhs-norm", {read(f.interior(b)), reduce(h)},
                   [layout = &f.layout(), origin = finest.origin(b), dims = finest.dimensions(),
                    data = f.data(b), h](TaskContext& ctx) {
                     add_unknown_squares(*layout, origin, dims, data,
                                         ctx.reduction_slot<ExactSum>(h));
                   });
  }
  session.comm().iallreduce_sum(h, &rhs);
  runtime.wait_for(h);
  rhs_norm_ = std::sqrt(rhs.value());
  if (!(rhs_norm_ > 0) || !std::isfinite(rhs_norm_)) {
    throw std::runtime_error(fmt::format("the right-hand side's norm is {}", rhs_norm_));
  }
}

double ResidualMonitor::check(int iteration) {
  finest_.submit_residual_squares(handle_);
  session_.comm().iallreduce_sum(handle_, &sum_);
  session_.runtime().wait_for(handle_);
  const double residual = std::sqrt(sum_.value()) / rhs_norm_;
  sum_ = ExactSum{};
  if (!std::isfinite(residual)) {
    throw std::runtime_error(
        fmt::format("iteration {}: the residual is {} (diverged)", iteration, residual));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  history_.push_back({iteration, seconds, residual});
  session_.progress("iteration {:>7}  residual {:.6e}  time {:.3f} s", iteration, residual,
                    seconds);
  return residual;
}

ErrorNorms measure_error(Session& session, GridLevel& finest, const SineProblem& problem) {
  Runtime& runtime = session.runtime();
  ExactSum squares;
  double max = 0;
  const Handle hs = runtime.create_reduction_handle(
      "error-l2", &squares, [](ExactSum& total, const ExactSum& part) { total.add(part); });
  const Handle hm = runtime.create_reduction_handle(
      "error-max", &max, [](double& total, const double& part) { total = std::max(total, part); });
  BlockField& u = finest.u();
  for (LocalBlockIndex b = 0; b < finest.mesh().local_block_count(); ++b) {
    runtime.submit("error", {read(u.interior(b)), reduce(hs), reduce(hm)},
                   [layout = &u.layout(), origin = finest.origin(b), problem = &problem,
                    data = u.data(b), hs, hm](TaskContext& ctx) {
                     add_errors(*layout, *problem, origin, data, ctx.reduction_slot<ExactSum>(hs),
                                ctx.reduction_slot<double>(hm));
                   });
  }
  session.comm().iallreduce_sum(hs, &squares);
  session.comm().iallreduce(hm, &max, 1, MPI_DOUBLE, MPI_MAX);
  runtime.wait_for(hs);
  runtime.wait_for(hm);
  std::int64_t unknowns = 1;
  const Int3 cells = finest.cells();
  for (int a = 0; a < finest.dimensions(); ++a) unknowns *= cells[a] - 1;
  return {std::sqrt(squares.value() / static_cast<double>(unknowns)), max};
}

double measure_checksum(Session& session, GridLevel& finest) {
  Runtime& runtime = session.runtime();
  ExactSum sum;
  const Handle h = runtime.create_reduction_handle(
      "checksum", &sum, [](ExactSum& total, const ExactSum& part) { total.add(part); });
  BlockField& u = finest.u();
  for (LocalBlockIndex b = 0; b < finest.mesh().local_block_count(); ++b) {
    runtime.submit("checksum", {read(u.interior(b)), reduce(h)},
                   [layout = &u.layout(), data = u.data(b), h](TaskContext& ctx) {
                     add_values(*layout, data, ctx.reduction_slot<ExactSum>(h));
                   });
  }
  session.comm().iallreduce_sum(h, &sum);
  runtime.wait_for(h);
  return sum.value();
}

}  // namespace tessera::poisson
