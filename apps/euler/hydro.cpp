// Stage kernels (VL2, RK2). The block's conserved variables (interior and face ghosts; edge and
// corner ghosts are never read) become primitives once; then the block is processed pencil
// by pencil along each axis, in a frame rotated so that the pencil's axis is "normal":
// faces get reconstructed left/right states and a Riemann flux, and the flux differences
// times dt/dx form that axis's term of the update (summed in axis order from 0, whether
// the axes run in one task or in several). Formulas are written so that a mirror image of
// the data gives the mirror image of the result bit for bit (the blast symmetry test).
#include "hydro.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "hydro/hllc.hpp"
#include "hydro/weno5z.hpp"
#include "problems.hpp"

namespace euler {

namespace {

// A face state in the pencil's frame: rho, un, ut1, ut2, p (apps/hydro's Riemann solvers).
using Prim = hydro::FaceState;

// Van Leer's harmonic limiter on the one-sided differences (Athena++'s PLM default).
double van_leer(double left, double right) {
  const double product = left * right;
  return product > 0 ? 2 * product / (left + right) : 0.0;
}

// Inlined: as a call (its states through memory) the stage took 1.3x the time.
[[gnu::always_inline]] inline hydro::FaceFlux riemann_flux(Riemann riemann, Prim l, Prim r,
                                                           const hydro::IdealGas& gas) {
  if (riemann == Riemann::hllc) return hydro::hllc_flux(l, r, gas);
  if (riemann == Riemann::hllc_pvrs) return hydro::hllc_flux<hydro::SignalSpeeds::pvrs>(l, r, gas);
  if (riemann == Riemann::hlle) return hydro::hlle_flux(l, r, gas);
  l.c = gas.sound_speed(l.rho, l.p);  // HLL with Davis speeds (radhydro's and HARD's)
  r.c = gas.sound_speed(r.rho, r.p);
  return hydro::hll_flux(l, r, gas);
}

Prim to_prim(double rho, double mn, double mt0, double mt1, double e, double gamma) {
  const double inv = 1.0 / rho;
  Prim w{rho, mn * inv, mt0 * inv, mt1 * inv, 0};
  w.p = (gamma - 1) * (e - 0.5 * (mn * w.un + (mt0 * w.ut1 + mt1 * w.ut2)));
  return w;
}

bool bad_state(double rho, double p) {
  return !(rho > 0) || !(p > 0) || !std::isfinite(rho) || !std::isfinite(p);
}

// The index of interior cell (i, j, k) in a stage term (i fastest, as the block's layout).
std::size_t term_index(const tessera::BlockShape& s, int i, int j, int k) {
  return (static_cast<std::size_t>(k) * static_cast<std::size_t>(s.cells[1]) +
          static_cast<std::size_t>(j)) *
             static_cast<std::size_t>(s.cells[0]) +
         static_cast<std::size_t>(i);
}

// One pencil as structure of arrays: primitives q[field][m], their reconstructed values on
// each cell's lower and upper face, and the face fluxes. Per thread: a flux task needs
// only its pencil.
constexpr int kFields = 5;  // rho, vn, vt0, vt1, p
struct PencilScratch {
  std::vector<double> values;  // q, lo, hi: kFields arrays of the pencil's length each
  std::vector<std::array<double, kFields>> flux;
};

// The fused stage's block-sized scratch, per thread.
struct StageScratch {
  std::vector<double> du;
  std::vector<double> w;  // primitives rho, vx, vy, vz, p of the block (primitive_layout)
};

// The first interior cell of `src` (variable 0 of a group) with a bad state, in i-major
// order (i outermost, k innermost): the cell a fault reports, whichever order found it.
CellFault first_bad_cell(const tessera::BlockLayout& l, const double* src, double gamma) {
  const std::ptrdiff_t sv = l.stride_var();
  const tessera::Int3 n = l.cells();
  for (int i = 0; i < n.x; ++i)
    for (int j = 0; j < n.y; ++j)
      for (int k = 0; k < n.z; ++k) {
        const std::ptrdiff_t c = l.index(0, i, j, k);
        const Prim w =
            to_prim(src[c], src[c + sv], src[c + 2 * sv], src[c + 3 * sv], src[c + 4 * sv], gamma);
        if (bad_state(w.rho, w.p)) return {true, {i, j, k}, w.rho, w.p};
      }
  return {};
}

}  // namespace

tessera::BlockLayout primitive_layout(const tessera::BlockShape& s) {
  return tessera::BlockLayout({s.cells[0], s.cells[1], s.cells[2]},
                              {s.ghost[0], s.ghost[1], s.ghost[2]}, kFields, s.row_alignment);
}

CellFault recover_primitives(const tessera::BlockShape& s, const double* block, int group,
                             double gamma, double* wp) {
  const tessera::BlockLayout l = s.layout();
  const std::ptrdiff_t sv = l.stride_var();
  const double* src = block + group * kVars * sv;
  const std::array<int, 3> n = s.cells, g = s.ghost;
  // Primitives once per cell: the interior and the face ghosts (edge and corner ghosts are
  // never read). Interior cells are checked for positivity on the way.
  for (int k = -g[2]; k < n[2] + g[2]; ++k)
    for (int j = -g[1]; j < n[1] + g[1]; ++j) {
      const int outside_jk = (k < 0 || k >= n[2]) + (j < 0 || j >= n[1]);
      if (outside_jk > 1) continue;
      const std::ptrdiff_t row = l.index(0, 0, j, k);
      for (int i = -g[0]; i < n[0] + g[0]; ++i) {
        const int outside = outside_jk + (i < 0 || i >= n[0]);
        if (outside > 1) continue;
        const std::ptrdiff_t c = row + i;
        const Prim w =
            to_prim(src[c], src[c + sv], src[c + 2 * sv], src[c + 3 * sv], src[c + 4 * sv], gamma);
        if (outside == 0 && bad_state(w.rho, w.p)) return first_bad_cell(l, src, gamma);
        wp[c] = w.rho;
        wp[c + sv] = w.un;
        wp[c + 2 * sv] = w.ut1;
        wp[c + 3 * sv] = w.ut2;
        wp[c + 4 * sv] = w.p;
      }
    }
  return {};
}

void axis_fluxes(const StageArgs& args, int axis, const double* w, double* term, bool accumulate,
                 double* faces, std::size_t face_offset) {
  const tessera::BlockShape& s = *args.shape;
  const tessera::BlockLayout l = s.layout();
  const hydro::IdealGas gas{args.gamma, 1.0};
  const std::array<int, 3> n = s.cells, g = s.ghost;
  const std::size_t cells = s.interior_cells();
  const Reconstruct reconstruct = args.reconstruct;
  const std::ptrdiff_t sa = std::array<std::ptrdiff_t, 3>{1, l.stride_y(), l.stride_z()}[axis];
  const int t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;  // the tangential axes, in order
  const int len = n[axis] + 2 * g[axis];
  thread_local PencilScratch scratch;
  scratch.values.resize(3 * kFields * static_cast<std::size_t>(len));
  scratch.flux.resize(static_cast<std::size_t>(n[axis] + 1));
  double *q[kFields], *lo[kFields], *hi[kFields];
  for (int f = 0; f < kFields; ++f) {
    q[f] = scratch.values.data() + f * len;
    lo[f] = q[f] + kFields * len;
    hi[f] = lo[f] + kFields * len;
  }
  const double dt_dx = args.dt_dx[axis];
  const int vmap[kFields] = {0, 1 + axis, 1 + t0, 1 + t1, 4};  // field -> conserved variable
  // Pencils are independent; the one along t0 (the lower tangential axis) varies fastest,
  // so consecutive pencils start on neighbouring cells of the layout.
  for (int r = 0; r < n[t1]; ++r)
    for (int p = 0; p < n[t0]; ++p) {
      int c0[3];
      c0[axis] = -g[axis];
      c0[t0] = p;
      c0[t1] = r;
      for (int f = 0; f < kFields; ++f) {
        const double* from = w + l.index(vmap[f], c0[0], c0[1], c0[2]);
        for (int m = 0; m < len; ++m) q[f][m] = from[m * sa];
      }
      // The cells' face values: PLM from 1 cell on each side, WENO5-Z from 2 (the faces read
      // lie in cells g - 1 .. n + g, so the ghost width suffices).
      if (reconstruct == Reconstruct::plm)
        for (int f = 0; f < kFields; ++f)
          for (int m = 1; m < len - 1; ++m) {
            const double dq = van_leer(q[f][m] - q[f][m - 1], q[f][m + 1] - q[f][m]);
            lo[f][m] = q[f][m] - 0.5 * dq;
            hi[f][m] = q[f][m] + 0.5 * dq;
          }
      if (reconstruct == Reconstruct::weno5z)
        for (int f = 0; f < kFields; ++f)
          for (int m = 2; m < len - 2; ++m) {
            const double* v = q[f] + m;
            lo[f][m] = hydro::weno5z_mean_face(v[2], v[1], v[0], v[-1], v[-2]);
            hi[f][m] = hydro::weno5z_mean_face(v[-2], v[-1], v[0], v[1], v[2]);
          }
      // Face e (0..n) lies between cells g - 1 + e and g + e of the pencil.
      for (int e = 0; e <= n[axis]; ++e) {
        const int a = g[axis] - 1 + e, b = a + 1;
        Prim lf{q[0][a], q[1][a], q[2][a], q[3][a], q[4][a]};
        Prim rf{q[0][b], q[1][b], q[2][b], q[3][b], q[4][b]};
        if (reconstruct != Reconstruct::pcm) {
          const Prim ls{hi[0][a], hi[1][a], hi[2][a], hi[3][a], hi[4][a]};
          const Prim rs{lo[0][b], lo[1][b], lo[2][b], lo[3][b], lo[4][b]};
          // Reconstructed states of positive cells can still be non-positive; use the cells.
          if (!bad_state(ls.rho, ls.p) && !bad_state(rs.rho, rs.p)) lf = ls, rf = rs;
        }
        const hydro::FaceFlux f = riemann_flux(args.riemann, lf, rf, gas);
        scratch.flux[static_cast<std::size_t>(e)] = {f.mass, f.momentum_n, f.momentum_t1,
                                                     f.momentum_t2, f.energy};
      }
      // The fluxes through the block's two faces on this pencil, for flux correction.
      if (faces != nullptr)
        for (int side = 0; side < 2; ++side)
          for (int v = 0; v < kFields; ++v)
            faces[args.flux_layout->index(2 * axis + side, vmap[v], p, r) - face_offset] =
                scratch.flux[static_cast<std::size_t>(side * n[axis])][static_cast<std::size_t>(v)];
      for (int m = 0; m < n[axis]; ++m) {
        int ci[3];
        ci[axis] = m;
        ci[t0] = p;
        ci[t1] = r;
        const std::size_t c = term_index(s, ci[0], ci[1], ci[2]);
        const auto& fl = scratch.flux[static_cast<std::size_t>(m)];
        const auto& fh = scratch.flux[static_cast<std::size_t>(m + 1)];
        for (std::size_t v = 0; v < kFields; ++v) {
          double& out = term[static_cast<std::size_t>(vmap[v]) * cells + c];
          out = accumulate ? out - dt_dx * (fh[v] - fl[v]) : dt_dx * (fh[v] - fl[v]);
        }
      }
    }
}

namespace {

// The stage's update row by row (an i row of the interior): increment(v, t, len, row)
// returns variable v's increments du of the row starting at term index t (in `row` or
// elsewhere); then dst = base + du, or (args.average) dst = (base + (src + du)) / 2. dst may
// be base or src.
template <typename Increment>
void update(const StageArgs& args, Increment&& increment) {
  const tessera::BlockShape& s = *args.shape;
  const tessera::BlockLayout l = s.layout();
  const auto sv = static_cast<std::size_t>(l.stride_var());
  const double* base = args.block + static_cast<std::size_t>(args.base_group * kVars) * sv;
  const double* src = args.block + static_cast<std::size_t>(args.src_group * kVars) * sv;
  double* dst = args.block + static_cast<std::size_t>(args.dst_group * kVars) * sv;
  thread_local std::vector<double> row;
  row.resize(static_cast<std::size_t>(s.cells[0]));
  for (int v = 0; v < kVars; ++v)
    for (int k = 0; k < s.cells[2]; ++k)
      for (int j = 0; j < s.cells[1]; ++j) {
        const std::size_t c = static_cast<std::size_t>(l.index(v, 0, j, k));
        const double* du = increment(v, term_index(s, 0, j, k), s.cells[0], row.data());
        if (args.average) {
          for (int m = 0; m < s.cells[0]; ++m)
            dst[c + m] = 0.5 * (base[c + m] + (src[c + m] + du[m]));
        } else {
          for (int m = 0; m < s.cells[0]; ++m) dst[c + m] = base[c + m] + du[m];
        }
      }
}

}  // namespace

void apply_terms(const StageArgs& args, const std::array<const double*, 3>& terms) {
  const tessera::BlockShape& s = *args.shape;
  const std::size_t cells = s.interior_cells();
  update(args, [&](int v, std::size_t t, int len, double* du) -> const double* {
    const std::size_t vt = static_cast<std::size_t>(v) * cells + t;
    const double* t0 = terms[0] + vt;
    const double* t1 = terms[1] + vt;
    if (args.dim == 3) {
      const double* t2 = terms[2] + vt;
      // The fused stage's running sum, term by term from 0 (0 - t, not -t: the same
      // signed zeros).
      for (int m = 0; m < len; ++m) du[m] = ((0.0 - t0[m]) - t1[m]) - t2[m];
    } else {
      for (int m = 0; m < len; ++m) du[m] = (0.0 - t0[m]) - t1[m];
    }
    return du;
  });
}

CellFault hydro_stage(const StageArgs& args) {
  const tessera::BlockShape& s = *args.shape;
  thread_local StageScratch scratch;
  const std::size_t cells = s.interior_cells();
  scratch.w.resize(primitive_layout(s).size());
  const CellFault fault =
      recover_primitives(s, args.block, args.src_group, args.gamma, scratch.w.data());
  if (fault.bad) return fault;
  scratch.du.assign(cells * kVars, 0.0);
  for (int axis = 0; axis < args.dim; ++axis)
    axis_fluxes(args, axis, scratch.w.data(), scratch.du.data(), true, args.face_flux, 0);
  update(args, [&](int v, std::size_t t, int, double*) {
    return scratch.du.data() + static_cast<std::size_t>(v) * cells + t;
  });
  return {};
}

ScanResult scan_block(const tessera::BlockShape& s, int dim, const double* block, int group,
                      const std::array<double, 3>& dx, double gamma) {
  const tessera::BlockLayout l = s.layout();
  const std::ptrdiff_t sv = l.stride_var();
  const double* u = block + group * kVars * sv;
  ScanResult result;
  result.dt = std::numeric_limits<double>::infinity();
  const std::array<int, 3> n = s.cells;
  // The minimum does not depend on the order of the cells (bad cells, the only source of
  // NaN, are skipped); the fault reported is the first in i-major order.
  bool bad = false;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j) {
      const std::ptrdiff_t row = l.index(0, 0, j, k);
      for (int i = 0; i < n[0]; ++i) {
        const std::ptrdiff_t c = row + i;
        const Prim w = to_prim(u[c], u[c + sv], u[c + 2 * sv], u[c + 3 * sv], u[c + 4 * sv], gamma);
        if (bad_state(w.rho, w.p)) {
          bad = true;
          continue;
        }
        const double cs = std::sqrt(gamma * w.p / w.rho);
        const double v[3] = {w.un, w.ut1, w.ut2};
        for (int a = 0; a < dim; ++a)
          result.dt = std::min(result.dt, dx[a] / (std::fabs(v[a]) + cs));
      }
    }
  if (bad) result.fault = first_bad_cell(l, u, gamma);
  return result;
}

}  // namespace euler
