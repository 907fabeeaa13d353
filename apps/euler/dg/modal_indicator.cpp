#include "modal_indicator.hpp"

#include <cstddef>

#include "tensor_ops.hpp"

namespace euler::dg {

namespace {

/// The Legendre polynomial of degree j on [0, 1] (P_j(2x - 1)).
double legendre(int j, double x) {
  const double t = 2 * x - 1;
  double p0 = 1, p1 = t;
  if (j == 0) return p0;
  for (int k = 2; k <= j; ++k) {
    const double pk = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  return p1;
}

}  // namespace

ModalIndicator::ModalIndicator(const NodalBasis& basis, int dim) : n_(basis.size()), dim_(dim) {
  // The Gauss rule of n points is exact for P_j L_i (degree <= 2p), so the projection onto
  // P_j is (2j + 1) sum_i w_i u_i P_j(x_i) (the norm of P_j on [0, 1] is 1 / (2j + 1)).
  to_modal_.resize(static_cast<std::size_t>(n_ * n_));
  for (int j = 0; j < n_; ++j)
    for (int i = 0; i < n_; ++i)
      to_modal_[static_cast<std::size_t>(j * n_ + i)] =
          (2 * j + 1) * basis.weights()[static_cast<std::size_t>(i)] *
          legendre(j, basis.points()[static_cast<std::size_t>(i)]);
  to_modal_t_ = transposed(to_modal_, n_);
}

double ModalIndicator::operator()(const double* u, double* scratch) const {
  const int size = tensor_size(n_, dim_);
  double* a = scratch;
  double* b = scratch + size;
  double* modes = scratch + 2 * size;
  const double* src = u;
  for (int axis = 0; axis < dim_; ++axis) {
    double* dst = axis == dim_ - 1 ? modes : (axis % 2 == 0 ? a : b);
    apply_along_axis(to_modal_.data(), to_modal_t_.data(), n_, dim_, axis, src, dst, false);
    src = dst;
  }
  double top = 0, variation = 0;
  for (int m = 1; m < size; ++m) {
    double norm = 1;
    bool highest = false;
    for (int axis = 0, r = m; axis < dim_; ++axis, r /= n_) {
      const int j = r % n_;
      norm /= 2 * j + 1;
      highest = highest || j == n_ - 1;
    }
    const double energy = norm * modes[m] * modes[m];
    variation += energy;
    if (highest) top += energy;
  }
  // Variation at round-off level of the mean (a uniform state) counts as none.
  const double floor = 1e-24 * modes[0] * modes[0];
  return variation > floor ? top / variation : 0.0;
}

}  // namespace euler::dg
