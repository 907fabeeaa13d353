// jacobi7's Solver, the checks: the residual and the error against the manufactured
// solution every --check-every iterations and at the end, and the checksum, all summed
// exactly over ranks. A check is validated and printed only when the next one has been
// submitted, so the pipeline never drains for it.

#include <fmt/format.h>

#include <cmath>
#include <span>
#include <stdexcept>

#include "jacobi_kernels.hpp"
#include "solver.hpp"

namespace tessera::jacobi7 {

nlohmann::json history_json(const std::vector<CheckResult>& history) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CheckResult& c : history)
    rows.push_back({{"iteration", c.iteration}, {"residual", c.residual}, {"error", c.error}});
  return rows;
}

CheckResult Solver::final_check() {
  if (options_.work == "full") exchange(*u_now_);
  session_.exec().begin_phase("check");
  submit_check(options_.iters);
  validate(checks_[(checks_submitted_ - 1) % 2]);
  return history_.back();
}

double Solver::checksum() {
  Runtime& runtime = session_.runtime();
  ExactSum sum;
  const Handle h = runtime.create_reduction_handle("checksum", &sum, add_exact);
  BlockField& u = *u_now_;
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    runtime.submit("checksum", {read(u.interior(b)), reduce(h)},
                   [layout = &u.layout(), data = u.data(b), h](TaskContext& ctx) {
                     ExactSum& slot = ctx.reduction_slot<ExactSum>(h);
                     const Int3 n = layout->cells();
                     for (int k = 0; k < n.z; ++k)
                       for (int j = 0; j < n.y; ++j) {
                         const double* row = data + layout->index(0, 0, j, k);
                         for (int i = 0; i < n.x; ++i) slot.add(row[i]);
                       }
                   });
  }
  session_.comm().iallreduce_sum(h, &sum);
  runtime.wait_for(h);
  return sum.value();
}

void Solver::submit_check(int it) {
  Runtime& runtime = session_.runtime();
  Check& check = checks_[checks_submitted_ % 2];
  check.iteration = it;
  const BlockField& u = *u_now_;
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    const Handle rh = check.residual_handle;
    const Handle eh = check.error_handle;
    collect_stencil_reads(u, b);
    accesses_.push_back(reduce(rh));
    accesses_.push_back(reduce(eh));
    runtime.submit("check", std::span<const Access>(accesses_),
                   [this, in = u.data(b), faces = &faces_of(u)[b], b, rh, eh](TaskContext& ctx) {
                     const BlockNorms norms =
                         block_norms(f_.layout(), problem_, mesh_.cell_origin(mesh_.local_block(b)),
                                     in, *faces, f_.data(b));
                     ctx.reduction_slot<ExactSum>(rh).add(norms.residual_squared);
                     ctx.reduction_slot<ExactSum>(eh).add(norms.error_squared);
                   });
  }
  session_.comm().iallreduce_sum(check.residual_handle, &check.residual);
  session_.comm().iallreduce_sum(check.error_handle, &check.error);
  if (checks_submitted_ > 0) validate(checks_[(checks_submitted_ - 1) % 2]);
  ++checks_submitted_;
}

// Waits for a check's global sums, prints and records it, and frees its slot.
void Solver::validate(Check& check) {
  if (check.iteration < 0) return;
  Runtime& runtime = session_.runtime();
  runtime.wait_for(check.residual_handle);
  runtime.wait_for(check.error_handle);
  const double cells = static_cast<double>(product(mesh_.cells()));
  const double residual = std::sqrt(check.residual.value() / cells);
  const double error = std::sqrt(check.error.value() / cells);
  if (!std::isfinite(residual) || !std::isfinite(error)) {
    throw std::runtime_error(fmt::format("iteration {}: residual {} or error {} is not finite",
                                         check.iteration, residual, error));
  }
  history_.push_back({check.iteration, residual, error});
  session_.progress("iter {:>8}  residual {:.6e}  error {:.6e}  elapsed {:.3f} s", check.iteration,
                    residual, error, session_.elapsed());
  check.iteration = -1;
  check.residual = ExactSum{};
  check.error = ExactSum{};
}

}  // namespace tessera::jacobi7
