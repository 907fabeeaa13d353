#include "periodic_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "element_error.hpp"
#include "element_projection.hpp"
#include "tensor_ops.hpp"

namespace euler::dg {

namespace {
using Size = std::size_t;

PeriodicMeshSpec checked(PeriodicMeshSpec spec) {
  if (spec.dim < 2 || spec.dim > 3) throw std::invalid_argument("PeriodicMesh: dim must be 2 or 3");
  if (spec.order < kMinOrder || spec.order > kMaxOrder)
    throw std::invalid_argument("PeriodicMesh: order must be in 1..9");
  for (int a = 0; a < 3; ++a) {
    auto& e = spec.elements[static_cast<Size>(a)];
    if (a >= spec.dim) e = 1;
    if (e < 1) throw std::invalid_argument("PeriodicMesh: elements must be >= 1");
  }
  return spec;
}
}  // namespace

PeriodicMesh::PeriodicMesh(const PeriodicMeshSpec& spec)
    : spec_(checked(spec)), ops_(spec_.order), ws_(spec_.order, spec_.dim) {
  elements_ = 1;
  for (int a = 0; a < 3; ++a) {
    const auto ua = static_cast<Size>(a);
    elements_ *= spec_.elements[ua];
    dx_[ua] = a < spec_.dim ? (spec_.box.hi[ua] - spec_.box.lo[ua]) / spec_.elements[ua] : 1;
  }
  const int n = spec_.order + 1;
  element_size_ = kNodeVars * static_cast<Size>(tensor_size(n, spec_.dim));
  trace_size_ = static_cast<Size>(face_trace_size(n, spec_.dim));
  u_.assign(static_cast<Size>(elements_) * element_size_, 0.0);
  traces_.assign(static_cast<Size>(elements_) * 2 * static_cast<Size>(spec_.dim) * trace_size_,
                 0.0);
  q_avg_.resize(element_size_);
  flux_avg_.resize(static_cast<Size>(spec_.dim) * element_size_);
  face_flux_.resize(trace_size_ / 2);
}

std::array<double, 3> PeriodicMesh::node_position(std::int64_t element, int node) const {
  std::array<double, 3> x{};
  const int n = ops_.n;
  std::int64_t e = element;
  for (int a = 0; a < spec_.dim; ++a) {
    const auto ua = static_cast<Size>(a);
    const std::int64_t ea = e % spec_.elements[ua];
    e /= spec_.elements[ua];
    const double xi = ops_.basis.points()[static_cast<Size>(node % n)];
    node /= n;
    x[ua] = spec_.box.lo[ua] + (static_cast<double>(ea) + xi) * dx_[ua];
  }
  return x;
}

std::int64_t PeriodicMesh::neighbour(std::int64_t element, int axis, int side) const {
  std::int64_t stride = 1;
  for (int a = 0; a < axis; ++a) stride *= spec_.elements[static_cast<Size>(a)];
  const std::int64_t count = spec_.elements[static_cast<Size>(axis)];
  const std::int64_t index = (element / stride) % count;
  const std::int64_t next = (index + (side == 1 ? 1 : count - 1)) % count;
  return element + (next - index) * stride;
}

void PeriodicMesh::fill(const std::function<State(const std::array<double, 3>&)>& f) {
  const ElementProjection projection(ops_.basis, spec_.dim);
  std::vector<double> values(kNodeVars * static_cast<Size>(projection.points()));
  for (std::int64_t e = 0; e < elements_; ++e) {
    const auto corner = node_position(e, 0);
    for (int q = 0; q < projection.points(); ++q) {
      std::array<double, 3> x = corner;
      const auto xi = projection.point(q);
      for (int a = 0; a < spec_.dim; ++a) {
        const auto ua = static_cast<Size>(a);
        x[ua] += (xi[ua] - ops_.basis.points()[0]) * dx_[ua];
      }
      const State s = f(x);
      for (Size v = 0; v < kNodeVars; ++v)
        values[v * static_cast<Size>(projection.points()) + static_cast<Size>(q)] = s[v];
    }
    projection.project(values.data(), kNodeVars, u_.data() + static_cast<Size>(e) * element_size_);
  }
}

double PeriodicMesh::stable_dt(double cfl) const {
  double dt = INFINITY;
  for (std::int64_t e = 0; e < elements_; ++e) {
    const double d = euler::dg::stable_dt(spec_.order, spec_.dim,
                                          u_.data() + static_cast<Size>(e) * element_size_, dx_,
                                          spec_.gamma, cfl);
    if (d == 0) return 0;
    dt = std::min(dt, d);
  }
  return dt;
}

bool PeriodicMesh::step(double dt) {
  const Size per_element = 2 * static_cast<Size>(spec_.dim) * trace_size_;
  for (std::int64_t e = 0; e < elements_; ++e) {
    double* ue = u_.data() + static_cast<Size>(e) * element_size_;
    const Prediction p =
        predict(ops_, spec_.dim, ue, dt, dx_, spec_.gamma, ws_, q_avg_.data(), flux_avg_.data());
    if (!p.admissible) return false;
    flops_ += predictor_flops(spec_.order, spec_.dim, p.iterations) +
              corrector_flops(spec_.order, spec_.dim);
    face_traces(ops_, spec_.dim, q_avg_.data(), flux_avg_.data(),
                traces_.data() + static_cast<Size>(e) * per_element);
    add_volume_term(ops_, spec_.dim, flux_avg_.data(), dt, dx_, ue);
  }
  // Each element's upper face along each axis, with the neighbour's lower face.
  for (std::int64_t e = 0; e < elements_; ++e)
    for (int a = 0; a < spec_.dim; ++a) {
      const std::int64_t up = neighbour(e, a, 1);
      const double* lower = traces_.data() + static_cast<Size>(e) * per_element +
                            static_cast<Size>(2 * a + 1) * trace_size_;
      const double* upper = traces_.data() + static_cast<Size>(up) * per_element +
                            static_cast<Size>(2 * a) * trace_size_;
      if (!face_flux(ops_.n, spec_.dim, a, lower, upper, spec_.gamma, spec_.flux,
                     face_flux_.data()))
        return false;
      const double dt_dx = dt / dx_[static_cast<Size>(a)];
      add_face_term(ops_, spec_.dim, a, 1, face_flux_.data(), dt_dx,
                    u_.data() + static_cast<Size>(e) * element_size_);
      add_face_term(ops_, spec_.dim, a, 0, face_flux_.data(), dt_dx,
                    u_.data() + static_cast<Size>(up) * element_size_);
    }
  return true;
}

State PeriodicMesh::totals() const {
  const int nodes = tensor_size(ops_.n, spec_.dim);
  const auto& w = ops_.basis.weights();
  double volume = 1;
  for (int a = 0; a < spec_.dim; ++a) volume *= dx_[static_cast<Size>(a)];
  State total{};
  for (std::int64_t e = 0; e < elements_; ++e) {
    const double* ue = u_.data() + static_cast<Size>(e) * element_size_;
    for (int node = 0; node < nodes; ++node) {
      double wt = volume;
      for (int a = 0, r = node; a < spec_.dim; ++a, r /= ops_.n)
        wt *= w[static_cast<Size>(r % ops_.n)];
      for (Size v = 0; v < kNodeVars; ++v)
        total[v] += wt * ue[v * static_cast<Size>(nodes) + static_cast<Size>(node)];
    }
  }
  return total;
}

PeriodicMesh::Errors PeriodicMesh::density_errors(
    const std::function<State(const std::array<double, 3>&)>& exact) const {
  const ElementError error(ops_.basis, spec_.dim);
  double domain = 1;
  for (int a = 0; a < spec_.dim; ++a)
    domain *= spec_.box.hi[static_cast<Size>(a)] - spec_.box.lo[static_cast<Size>(a)];
  std::array<double, 3> corner_offset{};
  for (int a = 0; a < spec_.dim; ++a)
    corner_offset[static_cast<Size>(a)] = ops_.basis.points()[0] * dx_[static_cast<Size>(a)];
  double l1 = 0, l2 = 0;
  for (std::int64_t e = 0; e < elements_; ++e) {
    auto corner = node_position(e, 0);
    for (int a = 0; a < spec_.dim; ++a)
      corner[static_cast<Size>(a)] -= corner_offset[static_cast<Size>(a)];
    const auto sums = error.integrate(u_.data() + static_cast<Size>(e) * element_size_, corner, dx_,
                                      [&](const std::array<double, 3>& x) { return exact(x)[0]; });
    l1 += sums[0];
    l2 += sums[1];
  }
  return {l1 / domain, std::sqrt(l2 / domain)};
}

}  // namespace euler::dg
