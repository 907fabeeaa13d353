#include "radiation_kernels.hpp"

#include <cmath>

#include "hydro/physical_constants.hpp"

namespace radhydro {
namespace {

using tessera::BlockLayout;
using tessera::Int3;

constexpr int kRhs = kDiffusionVars - 1;

}  // namespace

bool exchange_energy(const BlockLayout& layout, const Scheme& scheme, const Radiation& rad,
                     double dt, double* u, CellFault& fault, bool extrapolated) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t sv = layout.stride_var();
  constexpr double a = hydro::kRadiationConstant;
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const std::ptrdiff_t c = layout.index(0, i, j, k);
        const double rho = u[c];
        const double mx = u[c + sv], my = u[c + 2 * sv], mz = u[c + 3 * sv];
        const double kinetic = 0.5 * (mx * mx + my * my + mz * mz) / rho;
        const double eint = u[c + kEnergy * sv] - kinetic;
        const double er = u[c + kEr * sv];
        const double kk = hydro::kSpeedOfLight * rad.kappa * rho * dt;
        const double cv = scheme.gas.heat_capacity(rho);
        const double total = eint + er;
        // A positive temperature solves the exchange iff eint + er kk / (1 + kk) > 0 (then
        // f(0) < 0 below). A physical input has eint > 0 and E_r >= 0; an extrapolated one
        // only needs the root.
        const double solvable = eint + er * kk / (1 + kk);
        const bool input_ok = extrapolated ? solvable > 0 : eint > 0 && er >= 0;
        if (scheme.su_olson_epsilon > 0) {
          // y = a T^4: y / eps + (er + kk y) / (1 + kk) = total, linear in y.
          const double y = solvable / (1 / scheme.su_olson_epsilon + kk / (1 + kk));
          if (!(input_ok && std::isfinite(y))) {
            fault = {true, {i, j, k}, rho, scheme.gas.pressure(eint)};
            return false;
          }
          const double er_new = (er + kk * y) / (1 + kk);
          u[c + kEr * sv] = er_new;
          u[c + kEnergy * sv] = kinetic + (eint + er - er_new);
          continue;
        }
        // f(T) = cv T + (er + kk a T^4) / (1 + kk) - total, increasing in T >= 0, with
        // f(0) <= 0 and f(hi) >= 0 (hi = total / cv, raised by -er / ((1 + kk) cv) for a
        // negative extrapolated E_r): Newton inside a shrinking bracket.
        const auto f = [&](double t, double& df) {
          const double t3 = t * t * t;
          df = cv + 4 * kk * a * t3 / (1 + kk);
          return cv * t + (er + kk * a * t3 * t) / (1 + kk) - total;
        };
        double lo = 0, hi = er >= 0 ? total / cv : (total - er / (1 + kk)) / cv;
        if (!(input_ok && hi > 0 && std::isfinite(hi))) {
          fault = {true, {i, j, k}, rho, scheme.gas.pressure(eint)};
          return false;
        }
        double t = eint > 0 ? scheme.gas.temperature(rho, scheme.gas.pressure(eint)) : 0.5 * hi;
        for (int it = 0; it < 200; ++it) {
          double df = 0;
          const double fx = f(t, df);
          if (fx > 0) {
            hi = t;
          } else {
            lo = t;
          }
          double next = t - fx / df;
          if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
          if (std::abs(next - t) <= 1e-15 * t || hi - lo <= 1e-15 * hi) {
            t = next;
            break;
          }
          t = next;
        }
        const double t4 = t * t * t * t;
        const double er_new = (er + kk * a * t4) / (1 + kk);
        u[c + kEr * sv] = er_new;
        u[c + kEnergy * sv] = kinetic + (eint + er - er_new);
      }
    }
  }
  return true;
}

void setup_diffusion(const BlockLayout& layout, const Scheme& scheme, const Radiation& rad,
                     double dt, const double* u, const BlockLayout& coef_layout, double* coef,
                     bool lit) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t sv = layout.stride_var();
  const std::array<std::ptrdiff_t, 3> stride{1, layout.stride_y(), layout.stride_z()};
  const std::ptrdiff_t cv = coef_layout.stride_var();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const std::ptrdiff_t c = layout.index(0, i, j, k);
        const std::ptrdiff_t out = coef_layout.index(0, i, j, k);
        const double rho = u[c], er = u[c + kEr * sv];
        double explicit_part = 0;
        for (int f = 0; f < 6; ++f) {
          const int axis = f / 2;
          double coupling = 0;
          if (axis < scheme.dim) {
            const std::ptrdiff_t nb = c + (f % 2 == 0 ? -stride[axis] : stride[axis]);
            const double rho_f = 0.5 * (rho + u[nb]);
            const double er_nb = u[nb + kEr * sv];
            const double er_f = 0.5 * (er + er_nb);
            const double kr = rad.kappa * rho_f;
            double lambda = 1.0 / 3;
            if (rad.limiter) {
              const double r = er_f > 0 ? std::abs(er_nb - er) / scheme.dx[axis] / (kr * er_f) : 0;
              lambda = lp_limiter(r);
            }
            const double d = hydro::kSpeedOfLight * lambda / kr;
            const double g = dt * d / (scheme.dx[axis] * scheme.dx[axis]);
            coupling = rad.theta * g;
            explicit_part += (1 - rad.theta) * g * (er_nb - er);
          }
          coef[out + f * cv] = coupling;
        }
        const int ia = rad.incident_axis;
        const int lit_index = ia == 0 ? i : ia == 1 ? j : k;
        if (lit && rad.incident_er > 0 && lit_index == 0) {
          // Marshak's incident flux through the low face: the face's coupling (to a ghost
          // that copies the cell: no flux) replaced by beta on the row's diagonal.
          const double dx = scheme.dx[ia];
          const double d = hydro::kSpeedOfLight / (3 * rad.kappa * rho);
          const double g = dt / (dx * (dx / (2 * d) + 2 / hydro::kSpeedOfLight));
          const double beta = rad.theta * g;
          explicit_part += (1 - rad.theta) * g * (rad.incident_er - er);
          coef[out + 2 * ia * cv] = 0;
          for (int f = 0; f < 6; ++f) coef[out + f * cv] /= 1 + beta;
          // (b + beta E_inc) / (1 + beta) with b = explicit + E^n (finish_setup adds E^n).
          explicit_part = (explicit_part + beta * (rad.incident_er - er)) / (1 + beta);
        }
        coef[out + kRhs * cv] = explicit_part;
      }
    }
  }
}

void finish_setup(const BlockLayout& layout, const double* u, const BlockLayout& coef_layout,
                  double* coef, const BlockLayout& e_layout, double* e) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t sv = layout.stride_var();
  const std::ptrdiff_t cv = coef_layout.stride_var();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const double er = u[layout.index(0, i, j, k) + kEr * sv];
        coef[coef_layout.index(0, i, j, k) + kRhs * cv] += er;
        e[e_layout.index(0, i, j, k)] = er;
      }
    }
  }
}

void store_radiation(const BlockLayout& e_layout, const double* e, const BlockLayout& layout,
                     double* u) {
  const Int3 n = layout.cells();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        u[layout.index(kEr, i, j, k)] = e[e_layout.index(0, i, j, k)];
      }
    }
  }
}

namespace {

// (A e)_i - the off-diagonal part: returns the diagonal 1 + sum c_f and sets `off` to
// sum c_f e_f.
inline double couplings(const double* coef, std::ptrdiff_t out, std::ptrdiff_t cv, const double* e,
                        std::ptrdiff_t c, const std::array<std::ptrdiff_t, 3>& stride, int dim,
                        double& off) {
  double diag = 1;
  off = 0;
  for (int f = 0; f < 2 * dim; ++f) {
    const double cf = coef[out + f * cv];
    const std::ptrdiff_t nb = c + (f % 2 == 0 ? -stride[f / 2] : stride[f / 2]);
    diag += cf;
    off += cf * e[nb];
  }
  return diag;
}

}  // namespace

namespace {

// Calls body(c, diag, off, b) for every interior cell of the system: c the cell's offset in
// `layout`, diag = 1 + sum c_f, off = sum c_f e_f, b the right-hand side.
template <class Body>
void for_each_row(const BlockLayout& layout, const BlockLayout& coef_layout, const double* coef,
                  int dim, const double* e, Body&& body) {
  const Int3 n = layout.cells();
  const std::array<std::ptrdiff_t, 3> stride{1, layout.stride_y(), layout.stride_z()};
  const std::ptrdiff_t cv = coef_layout.stride_var();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const std::ptrdiff_t c = layout.index(0, i, j, k);
        const std::ptrdiff_t o = coef_layout.index(0, i, j, k);
        double off = 0;
        const double diag = couplings(coef, o, cv, e, c, stride, dim, off);
        body(c, diag, off, coef[o + kRhs * cv]);
      }
    }
  }
}

}  // namespace

void jacobi_sweep(const BlockLayout& layout, const BlockLayout& coef_layout, const double* coef,
                  double omega, int dim, const double* in, double* out) {
  for_each_row(layout, coef_layout, coef, dim, in,
               [&](std::ptrdiff_t c, double diag, double off, double b) {
                 out[c] = (1 - omega) * in[c] + omega * (b + off) / diag;
               });
}

void add_residual_squares(const BlockLayout& layout, const BlockLayout& coef_layout,
                          const double* coef, int dim, const double* e, tessera::ExactSum& r2,
                          tessera::ExactSum& e2) {
  for_each_row(layout, coef_layout, coef, dim, e,
               [&](std::ptrdiff_t c, double diag, double off, double b) {
                 const double r = (b - (diag * e[c] - off)) / diag;
                 r2.add(r * r);
                 e2.add(e[c] * e[c]);
               });
}

}  // namespace radhydro
