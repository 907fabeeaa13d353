#include "ader_element.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "small_gemm.hpp"
#include "tensor_ops.hpp"

namespace euler::dg {

namespace {

using Size = std::size_t;

/// The inverse of an n x n matrix by Gauss–Jordan elimination with partial pivoting.
std::vector<double> inverse(std::vector<double> m, int n) {
  std::vector<double> inv(m.size(), 0.0);
  for (int i = 0; i < n; ++i) inv[static_cast<Size>(i * n + i)] = 1;
  auto at = [n](std::vector<double>& a, int i, int j) -> double& {
    return a[static_cast<Size>(i * n + j)];
  };
  for (int c = 0; c < n; ++c) {
    int pivot = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(at(m, r, c)) > std::abs(at(m, pivot, c))) pivot = r;
    if (at(m, pivot, c) == 0) throw std::runtime_error("AderOperators: singular K1");
    for (int j = 0; j < n; ++j) {
      std::swap(at(m, c, j), at(m, pivot, j));
      std::swap(at(inv, c, j), at(inv, pivot, j));
    }
    const double d = at(m, c, c);
    for (int j = 0; j < n; ++j) {
      at(m, c, j) /= d;
      at(inv, c, j) /= d;
    }
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = at(m, r, c);
      for (int j = 0; j < n; ++j) {
        at(m, r, j) -= f * at(m, c, j);
        at(inv, r, j) -= f * at(inv, c, j);
      }
    }
  }
  return inv;
}

/// Operations counted per node and axis for one physical flux (pressure 9, flux 8) and its
/// scaling by 1/dx (5): the flop model's constants (docs/apps/euler.md).
constexpr std::int64_t kFluxFlops = 17;
constexpr std::int64_t kScaledFluxFlops = kFluxFlops + kNodeVars;
/// One face node's numerical flux: two signal speeds, the central average and the
/// dissipation (Rusanov; HLLC is counted the same).
constexpr std::int64_t kFaceFluxFlops = 80;

State gather(const double* t, Size stride, Size node) {
  return {t[node], t[stride + node], t[2 * stride + node], t[3 * stride + node],
          t[4 * stride + node]};
}

/// flux (count x kNodeVars x size) = scale * F_Axis(q) node by node; false if a node is not
/// admissible. The same operations as physical_flux and admissible (node_physics.hpp), on
/// the variables' arrays, so that the loop vectorizes.
template <int Axis>
bool axis_fluxes(const double* q, int count, Size size, double gamma, double scale, double* flux) {
  int bad = 0;
  const Size block = kNodeVars * size;
  for (int l = 0; l < count; ++l) {
    const double* __restrict rho = q + static_cast<Size>(l) * block;
    const double* __restrict mx = rho + size;
    const double* __restrict my = rho + 2 * size;
    const double* __restrict mz = rho + 3 * size;
    const double* __restrict en = rho + 4 * size;
    const double* __restrict ma = rho + (1 + Axis) * size;
    double* __restrict f = flux + static_cast<Size>(l) * block;
    for (Size i = 0; i < size; ++i) {
      const double p =
          (gamma - 1) * (en[i] - 0.5 * (mx[i] * mx[i] + my[i] * my[i] + mz[i] * mz[i]) / rho[i]);
      bad |= !(rho[i] > 0 && p > 0 && rho[i] < 1e300 && p < 1e300);
      const double va = ma[i] / rho[i];
      f[i] = scale * (rho[i] * va);
      f[size + i] = scale * (Axis == 0 ? mx[i] * va + p : mx[i] * va);
      f[2 * size + i] = scale * (Axis == 1 ? my[i] * va + p : my[i] * va);
      f[3 * size + i] = scale * (Axis == 2 ? mz[i] * va + p : mz[i] * va);
      f[4 * size + i] = scale * ((en[i] + p) * va);
    }
  }
  return bad == 0;
}

bool fluxes(const double* q, int count, Size size, int axis, double gamma, double scale,
            double* flux) {
  if (axis == 0) return axis_fluxes<0>(q, count, size, gamma, scale, flux);
  if (axis == 1) return axis_fluxes<1>(q, count, size, gamma, scale, flux);
  return axis_fluxes<2>(q, count, size, gamma, scale, flux);
}

}  // namespace

AderOperators::AderOperators(int order) : basis(order), n(order + 1) {
  derivative = basis.derivative();
  derivative_t = transposed(derivative, n);
  const auto& w = basis.weights();
  volume.assign(derivative.size(), 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      volume[static_cast<Size>(i * n + j)] = w[static_cast<Size>(j)] *
                                             derivative[static_cast<Size>(j * n + i)] /
                                             w[static_cast<Size>(i)];
  volume_t = transposed(volume, n);
  std::vector<double> k1(derivative.size());
  const auto& right = basis.face(1);
  for (int k = 0; k < n; ++k)
    for (int l = 0; l < n; ++l)
      k1[static_cast<Size>(k * n + l)] =
          right[static_cast<Size>(k)] * right[static_cast<Size>(l)] -
          w[static_cast<Size>(l)] * derivative[static_cast<Size>(l * n + k)];
  const auto k1_inverse = inverse(k1, n);
  time_step.assign(derivative.size(), 0.0);
  for (int k = 0; k < n; ++k)
    for (int l = 0; l < n; ++l)
      time_step[static_cast<Size>(k * n + l)] =
          k1_inverse[static_cast<Size>(k * n + l)] * w[static_cast<Size>(l)];
  for (int side = 0; side < 2; ++side) {
    auto& lf = lift[static_cast<Size>(side)];
    lf.resize(static_cast<Size>(n));
    for (int i = 0; i < n; ++i)
      lf[static_cast<Size>(i)] = basis.face(side)[static_cast<Size>(i)] / w[static_cast<Size>(i)];
  }
}

AderWorkspace::AderWorkspace(int order, int dim) {
  const Size n = static_cast<Size>(order + 1);
  const Size size = n * kNodeVars * static_cast<Size>(tensor_size(order + 1, dim));
  q.resize(size);
  q_next.resize(size);
  flux.resize(size);
  residual.resize(size);
}

Prediction predict(const AderOperators& ops, int dim, const double* u, double dt,
                   const std::array<double, 3>& dx, double gamma, AderWorkspace& ws, double* q_avg,
                   double* flux_avg) {
  const int n = ops.n;
  const Size size = static_cast<Size>(tensor_size(n, dim));
  const Size block = kNodeVars * size;
  const auto& w = ops.basis.weights();
  double scale = 0;
  for (Size i = 0; i < block; ++i) scale = std::max(scale, std::abs(u[i]));
  for (int l = 0; l < n; ++l) std::copy(u, u + block, ws.q.begin() + static_cast<long>(l * block));
  Prediction result;
  const int max_iterations = 2 * n + 8;
  for (int it = 0; it < max_iterations; ++it) {
    ++result.iterations;
    for (int a = 0; a < dim; ++a) {
      const bool ok =
          fluxes(ws.q.data(), n, size, a, gamma, 1 / dx[static_cast<Size>(a)], ws.flux.data());
      if (!ok) {
        result.admissible = false;
        return result;
      }
      apply_along_axis(ops.derivative.data(), ops.derivative_t.data(), n, dim, a, ws.flux.data(),
                       ws.residual.data(), a > 0, n * kNodeVars);
    }
    // q_next = u - dt A residual, all time nodes in one product.
    small_gemm(n, static_cast<int>(block), n, ops.time_step.data(), n, ws.residual.data(),
               static_cast<int>(block), ws.q_next.data(), static_cast<int>(block), false);
    double change = 0;
    for (int l = 0; l < n; ++l) {
      double* qn = ws.q_next.data() + static_cast<Size>(l) * block;
      const double* qo = ws.q.data() + static_cast<Size>(l) * block;
      for (Size i = 0; i < block; ++i) {
        qn[i] = u[i] - dt * qn[i];
        change = std::max(change, std::abs(qn[i] - qo[i]));
      }
    }
    std::swap(ws.q, ws.q_next);
    if (!(change > 1e-13 * scale)) break;
  }
  // Time averages of the state and of the fluxes of the converged predictor.
  std::fill(q_avg, q_avg + block, 0.0);
  for (int l = 0; l < n; ++l) {
    const double wl = w[static_cast<Size>(l)];
    const double* ql = ws.q.data() + static_cast<Size>(l) * block;
    for (Size i = 0; i < block; ++i) q_avg[i] = std::fma(wl, ql[i], q_avg[i]);
  }
  for (int a = 0; a < dim; ++a) {
    if (!fluxes(ws.q.data(), n, size, a, gamma, 1.0, ws.flux.data())) {
      result.admissible = false;
      return result;
    }
    double* fa = flux_avg + static_cast<Size>(a) * block;
    std::fill(fa, fa + block, 0.0);
    for (int l = 0; l < n; ++l) {
      const double wl = w[static_cast<Size>(l)];
      const double* fl = ws.flux.data() + static_cast<Size>(l) * block;
      for (Size i = 0; i < block; ++i) fa[i] = std::fma(wl, fl[i], fa[i]);
    }
  }
  return result;
}

void face_traces(const AderOperators& ops, int dim, const double* q_avg, const double* flux_avg,
                 double* traces) {
  const int n = ops.n;
  const Size block = kNodeVars * static_cast<Size>(tensor_size(n, dim));
  const Size face = static_cast<Size>(face_trace_size(n, dim));
  for (int a = 0; a < dim; ++a)
    for (int side = 0; side < 2; ++side) {
      double* t = traces + static_cast<Size>(2 * a + side) * face;
      const double* vec = ops.basis.face(side).data();
      contract_along_axis(vec, n, dim, a, q_avg, t, kNodeVars);
      contract_along_axis(vec, n, dim, a, flux_avg + static_cast<Size>(a) * block, t + face / 2,
                          kNodeVars);
    }
}

void add_volume_term(const AderOperators& ops, int dim, const double* flux_avg, double dt,
                     const std::array<double, 3>& dx, double* u) {
  const int n = ops.n;
  const Size block = kNodeVars * static_cast<Size>(tensor_size(n, dim));
  std::vector<double> scaled(block);
  for (int a = 0; a < dim; ++a) {
    const double c = dt / dx[static_cast<Size>(a)];
    const double* fa = flux_avg + static_cast<Size>(a) * block;
    for (Size i = 0; i < block; ++i) scaled[i] = c * fa[i];
    apply_along_axis(ops.volume.data(), ops.volume_t.data(), n, dim, a, scaled.data(), u, true,
                     kNodeVars);
  }
}

bool face_flux(int n, int dim, int axis, const double* lower_trace, const double* upper_trace,
               double gamma, FaceFlux kind, double* flux) {
  const Size nodes = static_cast<Size>(tensor_size(n, dim - 1));
  const Size half = kNodeVars * nodes;
  for (Size f = 0; f < nodes; ++f) {
    const State ql = gather(lower_trace, nodes, f), qr = gather(upper_trace, nodes, f);
    if (!admissible(ql, gamma) || !admissible(qr, gamma)) return false;
    const State d = face_dissipation(ql, qr, axis, gamma, kind);
    for (Size v = 0; v < kNodeVars; ++v)
      flux[v * nodes + f] =
          0.5 * (lower_trace[half + v * nodes + f] + upper_trace[half + v * nodes + f]) + d[v];
  }
  return true;
}

void add_face_term(const AderOperators& ops, int dim, int axis, int side, const double* flux,
                   double dt_dx, double* u) {
  const double scale = side == 1 ? -dt_dx : dt_dx;
  spread_along_axis(ops.lift[static_cast<Size>(side)].data(), scale, ops.n, dim, axis, flux, u,
                    kNodeVars);
}

double stable_dt(int order, int dim, const double* u, const std::array<double, 3>& dx, double gamma,
                 double cfl) {
  const Size size = static_cast<Size>(tensor_size(order + 1, dim));
  double rate = 0;
  for (Size node = 0; node < size; ++node) {
    const State s = gather(u, size, node);
    if (!admissible(s, gamma)) return 0;
    double r = 0;
    for (int a = 0; a < dim; ++a) r += signal_speed(s, a, gamma) / dx[static_cast<Size>(a)];
    rate = std::max(rate, r);
  }
  return cfl / (2 * order + 1) / rate;
}

std::int64_t predictor_flops(int order, int dim, int iterations) {
  const std::int64_t n = order + 1, size = tensor_size(order + 1, dim);
  const std::int64_t values = n * kNodeVars * size;                     // space-time nodal values
  const std::int64_t per_iteration = dim * n * size * kScaledFluxFlops  // fluxes
                                     + dim * values * 2 * n             // derivatives
                                     + values * 2 * n + 2 * values;     // time operator
  const std::int64_t averages = dim * n * size * kFluxFlops + (dim + 1) * values * 2;
  return iterations * per_iteration + averages;
}

std::int64_t corrector_flops(int order, int dim) {
  const std::int64_t n = order + 1, size = tensor_size(order + 1, dim);
  const std::int64_t face_nodes = size / n;
  const std::int64_t volume = dim * (kNodeVars * size * (2 * n + 1));
  const std::int64_t traces = 2 * dim * 2 * kNodeVars * face_nodes * 2 * n;
  const std::int64_t fluxes = dim * face_nodes * kFaceFluxFlops;  // half of the 2 dim faces
  const std::int64_t lifts = 2 * dim * kNodeVars * size * 2;
  return volume + traces + fluxes + lifts;
}

}  // namespace euler::dg
