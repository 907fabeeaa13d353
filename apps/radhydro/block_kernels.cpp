#include "block_kernels.hpp"

#include <cmath>
#include <vector>

#include "hydro/hll.hpp"
#include "hydro/physical_constants.hpp"
#include "hydro/weno5z.hpp"

namespace radhydro {
namespace {

using tessera::BlockLayout;
using tessera::Int3;

// Primitives along a line: rho, v_normal, v_t1, v_t2, p, E_r, and for HARD's face
// states the sound speed c and the specific internal energy e.
constexpr int kPrims = 8;
enum Prim : int { kPrimRho = 0, kPrimP = 4, kPrimEr = 5, kPrimC = 6, kPrimE = 7 };

double pressure_of(const Scheme& s, const double* u, std::ptrdiff_t c, std::ptrdiff_t sv) {
  const double rho = u[c];
  const double mx = u[c + sv], my = u[c + 2 * sv], mz = u[c + 3 * sv];
  return s.gas.pressure(u[c + 4 * sv] - 0.5 * (mx * mx + my * my + mz * mz) / rho);
}

bool positive(double rho, double p) {
  return rho > 0 && p > 0 && std::isfinite(rho + p);
}

// Scratch of one task: the flux divergence and one line's primitives and fluxes.
struct Scratch {
  std::vector<double> rhs;
  std::vector<double> w;     // kPrims x (n + 2 kGhost)
  std::vector<double> flux;  // kPrims x (n + 1)
  std::vector<double> face;  // 2 kPrims x (n + 1): each face's left and right values
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// The radiation force, its work and the -f E div v term of every interior cell, added to
// rhs (the flux divergence, variable-major over the interior), from central differences of
// src (face ghosts filled).
void add_radiation_sources(const BlockLayout& layout, const Scheme& s, const double* src,
                           double* rhs) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t sv = layout.stride_var();
  const std::array<std::ptrdiff_t, 3> stride{1, layout.stride_y(), layout.stride_z()};
  const std::size_t cells = static_cast<std::size_t>(n.x) * n.y * n.z;
  std::size_t at = 0;
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i, ++at) {
        const std::ptrdiff_t c = layout.index(0, i, j, k);
        const double rho = src[c], er = src[c + kEr * sv];
        double grad[3] = {0, 0, 0}, v[3], div_v = 0, grad2 = 0;
        for (int a = 0; a < 3; ++a) v[a] = src[c + (kMomX + a) * sv] / rho;
        for (int a = 0; a < s.dim; ++a) {
          const std::ptrdiff_t lo = c - stride[a], hi = c + stride[a];
          const double inv = 0.5 / s.dx[a];
          grad[a] = (src[hi + kEr * sv] - src[lo + kEr * sv]) * inv;
          div_v +=
              (src[hi + (kMomX + a) * sv] / src[hi] - src[lo + (kMomX + a) * sv] / src[lo]) * inv;
          grad2 += grad[a] * grad[a];
        }
        double lambda = 1.0 / 3, f = 1.0 / 3;
        if (s.limiter) {
          const double r = er > 0 ? std::sqrt(grad2) / (s.kappa * rho * er) : 0;
          lambda = (2 + r) / (6 + 3 * r + r * r);
          f = lambda + lambda * lambda * r * r;
        }
        double work = 0;
        for (int a = 0; a < s.dim; ++a) {
          rhs[(kMomX + a) * cells + at] -= lambda * grad[a];
          work += v[a] * grad[a];
        }
        rhs[kEnergy * cells + at] -= lambda * work;
        rhs[kEr * cells + at] -= f * er * div_v;
      }
    }
  }
}

// The HLL fluxes through a line's nf faces (flux: kPrims x nf, in the primitives' order)
// from the reconstructed face values (face: 2 kPrims x nf, each variable's left values
// then its right ones); a reconstructed density, pressure, E_r, c or e that is not
// positive falls back to its cell's value (w: kPrims x wl, face f between cells f + 2 and
// f + 3). Hard (Scheme::hard_faces) and Rad (E_r present) are template parameters so that
// the loop has no branches left and vectorizes.
template <bool Hard, bool Rad>
void line_fluxes(const hydro::IdealGas& gas, const double* face, const double* w, int wl,
                 std::size_t nf, double* flux) {
  // flux does not overlap face or w (separate scratch arrays).
#pragma GCC ivdep
  for (std::size_t f = 0; f < nf; ++f) {
    // Side lr of face f (written out for both sides: a loop would stop the vectorizer).
    const auto side = [&](int lr) {
      const auto value = [&](int pv) { return face[(2 * pv + lr) * nf + f]; };
      const auto positive_value = [&](int pv) {
        // Both loaded, then selected: no branch.
        const double v = value(pv), cell = w[pv * wl + static_cast<int>(f) + 2 + lr];
        return v > 0 ? v : cell;
      };
      hydro::FaceState st;
      st.rho = positive_value(kPrimRho);
      st.un = value(1);
      st.ut1 = value(2);
      st.ut2 = value(3);
      st.p = positive_value(kPrimP);
      st.c = Hard ? positive_value(kPrimC) : gas.sound_speed(st.rho, st.p);
      st.er = Rad ? positive_value(kPrimEr) : 0.0;
      st.eint = Hard ? st.rho * positive_value(kPrimE) : -1.0;
      return st;
    };
    const hydro::FaceFlux F = hydro::hll_flux(side(0), side(1), gas);
    flux[0 * nf + f] = F.mass;
    flux[1 * nf + f] = F.momentum_n;
    flux[2 * nf + f] = F.momentum_t1;
    flux[3 * nf + f] = F.momentum_t2;
    flux[4 * nf + f] = F.energy;
    flux[5 * nf + f] = F.radiation;
  }
}

}  // namespace

void fill_initial(const BlockLayout& layout, const Scheme& scheme, const Problem& problem,
                  const Corner& corner, double* u) {
  const Int3 n = layout.cells();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const std::array<double, 3> x = cell_centre(corner, scheme, i, j, k);
        const Primitive w = problem.initial(x, scheme.dx);
        u[layout.index(kRho, i, j, k)] = w.rho;
        double kinetic = 0;
        for (int a = 0; a < 3; ++a) {
          u[layout.index(kMomX + a, i, j, k)] = w.rho * w.v[a];
          kinetic += 0.5 * w.rho * w.v[a] * w.v[a];
        }
        u[layout.index(kEnergy, i, j, k)] = scheme.gas.internal_energy_density(w.p) + kinetic;
        if (scheme.nvars > kEr) u[layout.index(kEr, i, j, k)] = w.er;
      }
    }
  }
}

void fill_boundaries(const BlockLayout& layout, const Scheme& scheme,
                     const std::array<std::optional<Boundary>, 6>& faces, double* u) {
  const Int3 n = layout.cells();
  for (int face = 0; face < 6; ++face) {
    if (!faces[face]) continue;
    const int a = face / 2;
    const bool high = face % 2 == 1;
    const bool reflect = *faces[face] == Boundary::reflecting;
    // The face's cells: every interior cell across the other two axes.
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    for (int v = 0; v < scheme.nvars; ++v) {
      const double sign = reflect && v == kMomX + a ? -1.0 : 1.0;
      for (int q = 0; q < n[c]; ++q) {
        for (int r = 0; r < n[b]; ++r) {
          for (int g = 1; g <= kGhost; ++g) {
            Int3 ghost, from;
            ghost[b] = from[b] = r;
            ghost[c] = from[c] = q;
            ghost[a] = high ? n[a] - 1 + g : -g;
            // flow: the first interior cell; reflecting: the mirror image.
            from[a] = reflect ? (high ? n[a] - g : g - 1) : (high ? n[a] - 1 : 0);
            u[layout.index(v, ghost.x, ghost.y, ghost.z)] =
                sign * u[layout.index(v, from.x, from.y, from.z)];
          }
        }
      }
    }
  }
}

CellFault hydro_stage(const StageArgs& args) {
  const BlockLayout& layout = *args.layout;
  const Scheme& s = *args.scheme;
  const Int3 n = layout.cells();
  const std::ptrdiff_t sv = layout.stride_var();
  const int nv = s.nvars;
  const bool radiation = nv > kEr;
  const std::size_t cells = static_cast<std::size_t>(n.x) * n.y * n.z;
  Scratch& scr = scratch();
  scr.rhs.assign(cells * nv, 0.0);
  CellFault fault;
  const std::array<std::ptrdiff_t, 3> stride{1, layout.stride_y(), layout.stride_z()};
  for (int a = 0; a < s.dim; ++a) {
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    const int len = n[a];
    const int wl = len + 2 * kGhost;
    scr.w.resize(static_cast<std::size_t>(kPrims) * wl);
    scr.flux.resize(static_cast<std::size_t>(kPrims) * (len + 1));
    scr.face.resize(static_cast<std::size_t>(2 * kPrims) * (len + 1));
    double* w = scr.w.data();
    double* flux = scr.flux.data();
    double* face = scr.face.data();
    const std::size_t nf = static_cast<std::size_t>(len) + 1;
    const double inv_dx = 1.0 / s.dx[a];
    for (int q = 0; q < n[c]; ++q) {
      for (int r = 0; r < n[b]; ++r) {
        Int3 start;
        start[a] = -kGhost;
        start[b] = r;
        start[c] = q;
        const std::ptrdiff_t first = layout.index(0, start.x, start.y, start.z);
        // Primitives along the line, ghosts included.
        for (int m = 0; m < wl; ++m) {
          const std::ptrdiff_t at = first + m * stride[a];
          const double rho = args.src[at];
          const double inv_rho = 1.0 / rho;
          const double vn = args.src[at + (1 + a) * sv] * inv_rho;
          const double vt1 = args.src[at + (1 + b) * sv] * inv_rho;
          const double vt2 = args.src[at + (1 + c) * sv] * inv_rho;
          const double p = s.gas.pressure(args.src[at + kEnergy * sv] -
                                          0.5 * rho * (vn * vn + vt1 * vt1 + vt2 * vt2));
          if (!positive(rho, p) && !fault.bad) {
            Int3 cell = start;
            cell[a] += m;
            fault = {true, {cell.x, cell.y, cell.z}, rho, p};
            return fault;
          }
          w[0 * wl + m] = rho;
          w[1 * wl + m] = vn;
          w[2 * wl + m] = vt1;
          w[3 * wl + m] = vt2;
          w[4 * wl + m] = p;
          w[5 * wl + m] = radiation ? args.src[at + kEr * sv] : 0.0;
          if (s.hard_faces) {
            w[kPrimC * wl + m] = s.gas.sound_speed(rho, p);
            w[kPrimE * wl + m] = s.gas.internal_energy_density(p) * inv_rho;
          }
        }
        // The reconstructions, one variable at a time over all faces (a loop the compiler
        // vectorizes): face f lies between cells f-1 and f (buffer positions f + 2 and
        // f + 3); face[2 pv] holds the left values, face[2 pv + 1] the right ones.
        for (int pv = 0; pv < kPrims; ++pv) {
          if ((pv == kPrimEr && !radiation) || (pv >= kPrimC && !s.hard_faces)) continue;
          const double* x = w + pv * wl;
          double* left = face + 2 * pv * nf;
          double* right = left + nf;
          for (int f = 0; f <= len; ++f) {
            left[f] = hydro::weno5z_face(x[f], x[f + 1], x[f + 2], x[f + 3], x[f + 4]);
            right[f] = hydro::weno5z_face(x[f + 5], x[f + 4], x[f + 3], x[f + 2], x[f + 1]);
          }
        }
        // Fluxes through the line's len + 1 faces.
        if (s.hard_faces) {
          radiation ? line_fluxes<true, true>(s.gas, face, w, wl, nf, flux)
                    : line_fluxes<true, false>(s.gas, face, w, wl, nf, flux);
        } else {
          radiation ? line_fluxes<false, true>(s.gas, face, w, wl, nf, flux)
                    : line_fluxes<false, false>(s.gas, face, w, wl, nf, flux);
        }
        // The divergence, in the conserved variables' order.
        const int var_of[kPrims] = {kRho, kMomX + a, kMomX + b, kMomX + c, kEnergy, kEr, 0, 0};
        for (int pv = 0; pv < nv; ++pv) {
          const double* fl = flux + pv * nf;
          double* out = scr.rhs.data() + static_cast<std::size_t>(var_of[pv]) * cells;
          for (int i = 0; i < len; ++i) {
            Int3 cell;
            cell[a] = i;
            cell[b] = r;
            cell[c] = q;
            const std::size_t at = (static_cast<std::size_t>(cell.z) * n.y + cell.y) * n.x + cell.x;
            out[at] += (fl[i] - fl[i + 1]) * inv_dx;
          }
        }
      }
    }
  }
  if (radiation && s.radiation_force) add_radiation_sources(layout, s, args.src, scr.rhs.data());
  // The update, and the new state's checks.
  double max_speed = 0;
  std::size_t at = 0;
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i, ++at) {
        const std::ptrdiff_t cell = layout.index(0, i, j, k);
        if (args.implicit_in) {
          const double g = args.imex_gamma;
          for (int v = 0; v < nv; ++v) {
            const std::ptrdiff_t x = cell + v * sv;
            const double in = args.implicit_in[x];
            const double dk = args.dt * scr.rhs[v * cells + at];
            const double dg = (args.src[x] - in) / g;
            const double base = args.base[x];
            if (args.next_in) args.next_in[x] = in + dk + (1 - 2 * g) * dg;
            args.dst[x] = base + 0.5 * (dk + dg);
          }
        } else {
          for (int v = 0; v < nv; ++v) {
            const std::ptrdiff_t x = cell + v * sv;
            const double next = args.src[x] + args.dt * scr.rhs[v * cells + at];
            args.dst[x] = args.base ? 0.5 * (args.base[x] + next) : next;
          }
        }
        // IMEX's next implicit input is an extrapolation (1 - 2 g > g) whose gas energy may
        // dip below zero after a stiff exchange; its implicit stage restores it (the
        // exchange checks that it can), so only its density must be positive.
        const double* checked = args.next_in ? args.next_in : args.dst;
        const double rho = checked[cell];
        const double p = pressure_of(s, checked, cell, sv);
        const bool ok = args.next_in ? rho > 0 && std::isfinite(rho + p) : positive(rho, p);
        if (!ok && !fault.bad) {
          fault = {true, {i, j, k}, rho, p};
        }
        if (args.max_speed) {
          const double mx = args.dst[cell + sv], my = args.dst[cell + 2 * sv],
                       mz = args.dst[cell + 3 * sv];
          const double speed =
              std::sqrt(mx * mx + my * my + mz * mz) / rho + s.gas.sound_speed(rho, p);
          max_speed = std::fmax(max_speed, speed);
        }
      }
    }
  }
  if (args.max_speed) *args.max_speed = max_speed;
  return fault;
}

double max_signal_speed(const BlockLayout& layout, const Scheme& scheme, const double* u,
                        CellFault& fault) {
  const Int3 n = layout.cells();
  const std::ptrdiff_t sv = layout.stride_var();
  double max_speed = 0;
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const std::ptrdiff_t cell = layout.index(0, i, j, k);
        const double rho = u[cell];
        const double p = pressure_of(scheme, u, cell, sv);
        if (!positive(rho, p)) {
          if (!fault.bad) fault = {true, {i, j, k}, rho, p};
          continue;
        }
        const double mx = u[cell + sv], my = u[cell + 2 * sv], mz = u[cell + 3 * sv];
        max_speed = std::fmax(max_speed, std::sqrt(mx * mx + my * my + mz * mz) / rho +
                                             scheme.gas.sound_speed(rho, p));
      }
    }
  }
  return max_speed;
}

void add_sums(const BlockLayout& layout, const Scheme& scheme, const double* u, BlockSums& sums) {
  const Int3 n = layout.cells();
  const double volume = scheme.dx[0] * scheme.dx[1] * scheme.dx[2];
  for (int v = 0; v < scheme.nvars; ++v) {
    for (int k = 0; k < n.z; ++k) {
      for (int j = 0; j < n.y; ++j) {
        const double* row = u + layout.index(v, 0, j, k);
        for (int i = 0; i < n.x; ++i) {
          sums.totals[v].add(row[i] * volume);
          sums.checksum.add(row[i] * row[i]);
        }
      }
    }
  }
}

double Scheme::temperature(double rho, double p) const {
  if (su_olson_epsilon == 0) return gas.temperature(rho, p);
  const double t4 = su_olson_epsilon * p / ((gas.gamma - 1) * hydro::kRadiationConstant);
  return std::sqrt(std::sqrt(t4));
}

CellPrimitive cell_primitive(const BlockLayout& layout, const Scheme& scheme, const double* u,
                             int i, int j, int k) {
  const std::ptrdiff_t cell = layout.index(0, i, j, k);
  const std::ptrdiff_t sv = layout.stride_var();
  const double rho = u[cell];
  const double p = pressure_of(scheme, u, cell, sv);
  return {rho,
          u[cell + sv] / rho,
          u[cell + 2 * sv] / rho,
          u[cell + 3 * sv] / rho,
          p,
          scheme.temperature(rho, p),
          scheme.nvars > kEr ? u[cell + kEr * sv] : 0.0};
}

void add_errors(const BlockLayout& layout, const Scheme& scheme, const Problem& problem,
                const Corner& corner, double t, const double* u,
                std::array<tessera::ExactSum, 3>& errors) {
  const Int3 n = layout.cells();
  const int axis = problem.axis();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) {
        const std::array<double, 3> x = cell_centre(corner, scheme, i, j, k);
        const Primitive ref = problem.reference(x, t);
        const CellPrimitive w = cell_primitive(layout, scheme, u, i, j, k);
        const double v[3] = {w.vx, w.vy, w.vz};
        errors[0].add(std::abs(w.rho - ref.rho));
        errors[1].add(std::abs(v[axis] - ref.v[axis]));
        errors[2].add(std::abs(w.p - ref.p));
      }
    }
  }
}

}  // namespace radhydro
