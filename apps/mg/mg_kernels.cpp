#include "mg_kernels.hpp"

#include <cstdint>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace tessera::mg {

namespace {

// r[i] = v[i] - a0 u[i] - a2 (u2[i+1] + u1[i] + u1[i+2]) - a3 (u2[i] + u2[i+2]) for
// 0 <= i < n (u1/u2 indexed from cell -1), in NPB's order of operations: the AVX-512 path
// and the scalar path give the same bits (no FMA contraction). With `stream`, 64-byte
// aligned rows of a multiple of 8 cells are written with streaming stores.
inline void residual_row(double* rr, const double* vr, const double* uc, const double* u1,
                         const double* u2, int n, double a0, double a2, double a3, bool stream) {
  int i = 0;
#if defined(__AVX512F__)
  if (stream && reinterpret_cast<std::uintptr_t>(rr) % 64 == 0 && n % 8 == 0) {
    const __m512d va0 = _mm512_set1_pd(a0), va2 = _mm512_set1_pd(a2), va3 = _mm512_set1_pd(a3);
    for (; i < n; i += 8) {
      const __m512d t1 =
          _mm512_sub_pd(_mm512_loadu_pd(vr + i), _mm512_mul_pd(va0, _mm512_loadu_pd(uc + i)));
      const __m512d s2 =
          _mm512_add_pd(_mm512_add_pd(_mm512_loadu_pd(u2 + i + 1), _mm512_loadu_pd(u1 + i)),
                        _mm512_loadu_pd(u1 + i + 2));
      const __m512d t2 = _mm512_sub_pd(t1, _mm512_mul_pd(va2, s2));
      const __m512d s3 = _mm512_add_pd(_mm512_loadu_pd(u2 + i), _mm512_loadu_pd(u2 + i + 2));
      _mm512_stream_pd(rr + i, _mm512_sub_pd(t2, _mm512_mul_pd(va3, s3)));
    }
    return;
  }
#else
  (void)stream;
#endif
  for (; i < n; ++i) {
    rr[i] = vr[i] - a0 * uc[i] - a2 * (u2[i + 1] + u1[i] + u1[i + 2]) - a3 * (u2[i] + u2[i + 2]);
  }
}

}  // namespace

void residual(ConstGridView u, ConstGridView v, GridView r, Int3 n, const Coefficients& a,
              bool stream) {
  // u1/u2 hold row sums for i = -1 .. n.x at index i + 1.
  double u1[kMaxBlockCells + 2];
  double u2[kMaxBlockCells + 2];
  const double a0 = a[0], a2 = a[2], a3 = a[3];
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      const double* ym = u.row(j - 1, k);
      const double* yp = u.row(j + 1, k);
      const double* zm = u.row(j, k - 1);
      const double* zp = u.row(j, k + 1);
      const double* ymzm = u.row(j - 1, k - 1);
      const double* ypzm = u.row(j + 1, k - 1);
      const double* ymzp = u.row(j - 1, k + 1);
      const double* ypzp = u.row(j + 1, k + 1);
      for (int i = -1; i <= n.x; ++i) {
        u1[i + 1] = ym[i] + yp[i] + zm[i] + zp[i];
        u2[i + 1] = ymzm[i] + ypzm[i] + ymzp[i] + ypzp[i];
      }
      residual_row(r.row(j, k), v.row(j, k), u.row(j, k), u1, u2, n.x, a0, a2, a3, stream);
    }
  }
#if defined(__SSE2__)
  if (stream) _mm_sfence();  // streamed lines reach memory before the task completes
#endif
}

void smooth(ConstGridView r, GridView u, Int3 n, const Coefficients& c, bool zero_first) {
  double r1[kMaxBlockCells + 2];
  double r2[kMaxBlockCells + 2];
  const double c0 = c[0], c1 = c[1], c2 = c[2];
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      const double* ym = r.row(j - 1, k);
      const double* yp = r.row(j + 1, k);
      const double* zm = r.row(j, k - 1);
      const double* zp = r.row(j, k + 1);
      const double* ymzm = r.row(j - 1, k - 1);
      const double* ypzm = r.row(j + 1, k - 1);
      const double* ymzp = r.row(j - 1, k + 1);
      const double* ypzp = r.row(j + 1, k + 1);
      for (int i = -1; i <= n.x; ++i) {
        r1[i + 1] = ym[i] + yp[i] + zm[i] + zp[i];
        r2[i + 1] = ymzm[i] + ypzm[i] + ymzp[i] + ypzp[i];
      }
      const double* rc = r.row(j, k);
      double* ur = u.row(j, k);
      if (zero_first) {
        // NPB adds to a zeroed u: 0 + x == x, the same bits as assigning x.
        for (int i = 0; i < n.x; ++i) {
          ur[i] = 0.0 + c0 * rc[i] + c1 * (rc[i - 1] + rc[i + 1] + r1[i + 1]) +
                  c2 * (r2[i + 1] + r1[i] + r1[i + 2]);
        }
      } else {
        for (int i = 0; i < n.x; ++i) {
          ur[i] = ur[i] + c0 * rc[i] + c1 * (rc[i - 1] + rc[i + 1] + r1[i + 1]) +
                  c2 * (r2[i + 1] + r1[i] + r1[i + 2]);
        }
      }
    }
  }
}

void restrict_residual(ConstGridView fine, GridView coarse, Int3 nc) {
  // x1/y1 at fine x = 2J for J = 0 .. nc.x (index J).
  double x1[kMaxBlockCells / 2 + 1];
  double y1[kMaxBlockCells / 2 + 1];
  for (int jz = 0; jz < nc.z; ++jz) {
    const int iz = 2 * jz + 1;
    for (int jy = 0; jy < nc.y; ++jy) {
      const int iy = 2 * jy + 1;
      const double* ym = fine.row(iy - 1, iz);
      const double* yp = fine.row(iy + 1, iz);
      const double* zm = fine.row(iy, iz - 1);
      const double* zp = fine.row(iy, iz + 1);
      const double* ymzm = fine.row(iy - 1, iz - 1);
      const double* ymzp = fine.row(iy - 1, iz + 1);
      const double* ypzm = fine.row(iy + 1, iz - 1);
      const double* ypzp = fine.row(iy + 1, iz + 1);
      const double* c = fine.row(iy, iz);
      for (int jx = 0; jx <= nc.x; ++jx) {
        const int i = 2 * jx;
        x1[jx] = ym[i] + yp[i] + zm[i] + zp[i];
        y1[jx] = ymzm[i] + ymzp[i] + ypzm[i] + ypzp[i];
      }
      double* s = coarse.row(jy, jz);
      for (int jx = 0; jx < nc.x; ++jx) {
        const int i = 2 * jx + 1;
        const double y2 = ymzm[i] + ymzp[i] + ypzm[i] + ypzp[i];
        const double x2 = ym[i] + yp[i] + zm[i] + zp[i];
        s[jx] = 0.5 * c[i] + 0.25 * (c[i - 1] + c[i + 1] + x2) +
                0.125 * (x1[jx] + x1[jx + 1] + y2) + 0.0625 * (y1[jx] + y1[jx + 1]);
      }
    }
  }
}

namespace {

// Writes fine row `out` from the coarse row sums: odd fine x = 2J + 1 takes w * s(J), even
// fine x = 2J + 2 takes w2 * (s(J) + s(J + 1)) (with s(J) at s[J + 1]), for fine x in
// [0, nf) or, with `ghosts`, [-1, nf].
template <bool kAdd>
inline void interpolate_row(double* out, const double* s, int nf, double w, double w2,
                            bool ghosts) {
  const int m = nf / 2;
  // One pass over the row: fine 2J + 2 (even) and 2J + 3 (odd) from coarse J and J + 1.
  if (ghosts) {
    double& o = out[-1];  // odd fine -1 from coarse -1
    o = (kAdd ? o : 0.0) + w * s[0];
  }
  for (int jx = 0; jx < m; ++jx) {
    double& even = out[2 * jx];
    double& odd = out[2 * jx + 1];
    even = (kAdd ? even : 0.0) + w2 * (s[jx + 1] + s[jx]);
    odd = (kAdd ? odd : 0.0) + w * s[jx + 1];
  }
  if (ghosts) {
    double& o = out[2 * m];  // even fine nf from coarse m - 1 and m
    o = (kAdd ? o : 0.0) + w2 * (s[m + 1] + s[m]);
  }
}

template <bool kAdd>
void interpolate_block(ConstGridView z, GridView u, Int3 nf, bool ghosts) {
  // Coarse row sums for J = -1 .. m.x at index J + 1.
  double z0[kMaxBlockCells / 2 + 2];
  double z1[kMaxBlockCells / 2 + 2];
  double z2[kMaxBlockCells / 2 + 2];
  double z3[kMaxBlockCells / 2 + 2];
  const Int3 m{nf.x / 2, nf.y / 2, nf.z / 2};
  const int lo = ghosts ? -1 : 0;
  const int hi_y = ghosts ? nf.y + 1 : nf.y;
  const int hi_z = ghosts ? nf.z + 1 : nf.z;
  for (int jz = -1; jz < m.z; ++jz) {
    for (int jy = -1; jy < m.y; ++jy) {
      const double* c = z.row(jy, jz);
      const double* cy = z.row(jy + 1, jz);
      const double* cz = z.row(jy, jz + 1);
      const double* cyz = z.row(jy + 1, jz + 1);
      for (int jx = -1; jx <= m.x; ++jx) {
        z0[jx + 1] = c[jx];
        z1[jx + 1] = cy[jx] + c[jx];
        z2[jx + 1] = cz[jx] + c[jx];
        z3[jx + 1] = cyz[jx] + cz[jx] + z1[jx + 1];
      }
      // Fine rows y = 2 jy + 1 (coarse-aligned) and 2 jy + 2 (between), the same in z.
      const int fy[2] = {2 * jy + 1, 2 * jy + 2};
      const int fz[2] = {2 * jz + 1, 2 * jz + 2};
      for (int b = 0; b < 2; ++b) {
        if (fz[b] < lo || fz[b] >= hi_z) continue;
        for (int a = 0; a < 2; ++a) {
          if (fy[a] < lo || fy[a] >= hi_y) continue;
          // NPB's weights: z0 -> 1, 1/2; z1 and z2 -> 1/2, 1/4; z3 -> 1/4, 1/8.
          const double* s = a == 0 ? (b == 0 ? z0 : z2) : (b == 0 ? z1 : z3);
          const double w = a + b == 0 ? 1.0 : (a + b == 1 ? 0.5 : 0.25);
          interpolate_row<kAdd>(u.row(fy[a], fz[b]), s, nf.x, w, 0.5 * w, ghosts);
        }
      }
    }
  }
}

}  // namespace

void interpolate(ConstGridView z, GridView u, Int3 nf, bool add, bool ghosts) {
  if (add) {
    interpolate_block<true>(z, u, nf, ghosts);
  } else {
    interpolate_block<false>(z, u, nf, ghosts);
  }
}

}  // namespace tessera::mg
