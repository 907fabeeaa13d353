// Packing and unpacking of one ghost-exchange link (halo_payload.hpp): same-level faces,
// domain boundaries, miniAMR's per-cell level jumps, per-volume prolongation / restriction and
// a solver's CellTransfer (custom level jumps: children and parents of cells).
#include "amr/halo_payload.hpp"

#include <algorithm>

namespace tessera::halo_payload {

namespace {

// Sum of the r0 x r1 fine cells at p[o] (the 3-D order of operations when both are 2).
double face_sum(const FaceFrame& fr, const double* p, std::ptrdiff_t o) {
  if (fr.r1 == 1) return fr.r0 == 1 ? p[o] : p[o] + p[o + fr.s0];
  if (fr.r0 == 1) return p[o] + p[o + fr.s1];
  return (p[o] + p[o + fr.s0]) + (p[o + fr.s1] + p[o + fr.s0 + fr.s1]);
}

int clamp_index(int x, int n) {
  return std::clamp(x, 1, n);
}

// Slope of a limited-linear reconstruction from the two one-sided differences (zero at an
// extremum), as Athena++ prolongs.
double minmod(double left, double right) {
  if (left * right <= 0) return 0.0;
  return left > 0 ? std::min(left, right) : std::max(left, right);
}

// Per-volume level jumps. The coarse sender packs, for layers c = 0 .. coarse_layers from
// the face, its cells over the receiver's quarter widened by one cell on each side (indices
// clamped to its interior, so a missing side repeats the edge and limits the slope to 0).
void pack_prolong(const FaceFrame& fr, int q0, int q1, const double* src, int first, int vars,
                  double* out) {
  for (int v = first; v < first + vars; ++v)
    for (int c = 0; c <= fr.coarse_layers; ++c) {
      const double* p = fr.plane(src, v, fr.send_layer(c));
      for (int u = -1; u <= fr.h0; ++u) {
        const int cu = std::clamp(q0 * fr.h0 + u, 0, fr.n0 - 1) + fr.g0;
        for (int w = -1; w <= fr.h1; ++w) {
          const int cw = std::clamp(q1 * fr.h1 + w, 0, fr.n1 - 1) + fr.g1;
          *out++ = p[cu * fr.s0 + cw * fr.s1];
        }
      }
    }
}

// The fine receiver fills ghost depth d from coarse layer d / 2. Slopes are per coarse cell
// width; a fine cell centre sits a quarter of it from the coarse centre along every axis.
void unpack_prolong(const FaceFrame& fr, double* dst, int first, int vars, const double* in) {
  const int w0 = fr.h0 + 2, w1 = fr.h1 + 2;
  const std::size_t layer_values = static_cast<std::size_t>(w0) * static_cast<std::size_t>(w1);
  // The receiver's own interior layers next to the face, innermost last.
  const int own0 = fr.high ? fr.g + fr.n - 1 : fr.g;
  const int inward = fr.high ? -1 : 1;
  const double fine_weight = 1.0 / (2 * fr.r0 * fr.r1);  // exact: 1/8, 1/4 or 1/2
  for (int v = first; v < first + vars; ++v) {
    const double* var_in = in + static_cast<std::size_t>(v - first) * layer_values *
                                    static_cast<std::size_t>(fr.coarse_layers + 1);
    const auto coarse = [&](int c, int u, int w) {
      return var_in[static_cast<std::size_t>(c) * layer_values +
                    static_cast<std::size_t>(u) * static_cast<std::size_t>(w1) +
                    static_cast<std::size_t>(w)];
    };
    const double* own_a = fr.plane(static_cast<const double*>(dst), v, own0);
    const double* own_b = fr.plane(static_cast<const double*>(dst), v, own0 + inward);
    for (int c = 0; c < fr.coarse_layers; ++c)
      for (int u = 1; u <= fr.h0; ++u)
        for (int w = 1; w <= fr.h1; ++w) {
          const double centre = coarse(c, u, w);
          double inner;
          if (c == 0) {
            // Volume average of the receiver's 2 x r0 x r1 cells under this coarse cell's face.
            const std::ptrdiff_t o =
                (fr.g0 + fr.r0 * (u - 1)) * fr.s0 + (fr.g1 + fr.r1 * (w - 1)) * fr.s1;
            inner = (face_sum(fr, own_a, o) + face_sum(fr, own_b, o)) * fine_weight;
          } else {
            inner = coarse(c - 1, u, w);
          }
          const double dn = minmod(centre - inner, coarse(c + 1, u, w) - centre);
          const double du = minmod(centre - coarse(c, u - 1, w), coarse(c, u + 1, w) - centre);
          const double dw = minmod(centre - coarse(c, u, w - 1), coarse(c, u, w + 1) - centre);
          for (int sub = 0; sub < 2; ++sub) {
            const int d = 2 * c + sub;
            if (d >= fr.g) break;
            double* gp = fr.plane(dst, v, fr.ghost_layer(d));
            const double sn = sub == 0 ? -0.25 : 0.25;  // depth 0 is the half next to the face
            // Along a flat tangential axis the one fine cell sits at the coarse centre (dw
            // is 0 there: the sender's clamped neighbours repeat the cell).
            for (int a = 0; a < fr.r0; ++a)
              for (int b = 0; b < fr.r1; ++b) {
                const double su = fr.r0 == 1 ? 0.0 : a == 0 ? -0.25 : 0.25;
                const double sw = fr.r1 == 1 ? 0.0 : b == 0 ? -0.25 : 0.25;
                gp[(fr.g0 + fr.r0 * (u - 1) + a) * fr.s0 + (fr.g1 + fr.r1 * (w - 1) + b) * fr.s1] =
                    centre + ((sn * dn + su * du) + sw * dw);
              }
          }
        }
  }
}

// The fine sender packs, per coarse ghost depth d, the averages of its 2 x r0 x r1 cells in
// layers 2d and 2d + 1 from the face.
void pack_restrict(const FaceFrame& fr, const double* src, int first, int vars, double* out) {
  const double fine_weight = 1.0 / (2 * fr.r0 * fr.r1);  // exact: 1/8, 1/4 or 1/2
  for (int v = first; v < first + vars; ++v)
    for (int d = 0; d < fr.g; ++d) {
      const double* a = fr.plane(src, v, fr.send_layer(2 * d));
      const double* b = fr.plane(src, v, fr.send_layer(2 * d + 1));
      for (int u = 0; u < fr.h0; ++u)
        for (int w = 0; w < fr.h1; ++w) {
          const std::ptrdiff_t o = (fr.g0 + fr.r0 * u) * fr.s0 + (fr.g1 + fr.r1 * w) * fr.s1;
          *out++ = (face_sum(fr, a, o) + face_sum(fr, b, o)) * fine_weight;
        }
    }
}

void unpack_restrict(const FaceFrame& fr, int q0, int q1, double* dst, int first, int vars,
                     const double* in) {
  for (int v = first; v < first + vars; ++v)
    for (int d = 0; d < fr.g; ++d) {
      double* gp = fr.plane(dst, v, fr.ghost_layer(d));
      for (int u = 0; u < fr.h0; ++u)
        for (int w = 0; w < fr.h1; ++w)
          gp[(fr.g0 + q0 * fr.h0 + u) * fr.s0 + (fr.g1 + q1 * fr.h1 + w) * fr.s1] = *in++;
    }
}

// Custom level jumps (CellTransfer), one ghost layer. Child bits: bit a = upper half along
// mesh axis a (flat axes have none).
int child_bits(const FaceFrame& fr, int normal, int b0, int b1) {
  return (normal << fr.axis) | (b0 << fr.t0) | (b1 << fr.t1);
}

// The coarse sender packs its cells of the receiver's quarter next to the face: [v][u][w].
void pack_child(const FaceFrame& fr, int q0, int q1, const double* src, int first, int vars,
                double* out) {
  for (int v = first; v < first + vars; ++v) {
    const double* p = fr.plane(src, v, fr.send_layer(0));
    for (int u = 0; u < fr.h0; ++u)
      for (int w = 0; w < fr.h1; ++w)
        *out++ = p[(fr.g0 + q0 * fr.h0 + u) * fr.s0 + (fr.g1 + q1 * fr.h1 + w) * fr.s1];
  }
}

// The fine receiver's ghost cell (u, w) is a child of coarse cell (u / r0, w / r1): the half
// next to the face along the normal (the lower half beyond an upper face).
void unpack_child(const FaceFrame& fr, double* dst, int first, int vars, const double* in) {
  thread_local std::vector<double> parent, child;
  parent.resize(static_cast<std::size_t>(vars));
  child.resize(static_cast<std::size_t>(vars));
  const auto per_var = static_cast<std::size_t>(fr.h0) * static_cast<std::size_t>(fr.h1);
  double* g = fr.plane(dst, first, fr.ghost_layer(0));
  for (int u = 0; u < fr.n0; ++u)
    for (int w = 0; w < fr.n1; ++w) {
      const std::size_t c = static_cast<std::size_t>(u / fr.r0) * static_cast<std::size_t>(fr.h1) +
                            static_cast<std::size_t>(w / fr.r1);
      for (int v = 0; v < vars; ++v) parent[static_cast<std::size_t>(v)] = in[v * per_var + c];
      const int bits =
          child_bits(fr, fr.high ? 0 : 1, fr.r0 == 2 ? u % 2 : 0, fr.r1 == 2 ? w % 2 : 0);
      fr.transfer->child_from_parent(parent.data(), bits, child.data());
      const std::ptrdiff_t o = (fr.g0 + u) * fr.s0 + (fr.g1 + w) * fr.s1;
      for (int v = 0; v < vars; ++v) g[o + v * fr.sv] = child[static_cast<std::size_t>(v)];
    }
}

// The fine sender packs, per coarse ghost cell, the parent of its 2 x r0 x r1 cells in the
// two layers next to the face ([v][u][w], as pack_restrict with one layer).
void pack_parent(const FaceFrame& fr, const double* src, int first, int vars, double* out) {
  thread_local std::vector<double> parent, child;
  parent.resize(static_cast<std::size_t>(vars));
  child.resize(static_cast<std::size_t>(vars));
  const auto per_var = static_cast<std::size_t>(fr.h0) * static_cast<std::size_t>(fr.h1);
  const double* base = fr.plane(src, first, 0);
  // Child order: bits over the mesh axes (x fastest); flat axes have no bit.
  for (int u = 0; u < fr.h0; ++u)
    for (int w = 0; w < fr.h1; ++w) {
      std::fill(parent.begin(), parent.end(), 0.0);
      for (int bits = 0; bits < 8; ++bits) {
        const int bn = (bits >> fr.axis) & 1, b0 = (bits >> fr.t0) & 1, b1 = (bits >> fr.t1) & 1;
        if ((b0 == 1 && fr.r0 == 1) || (b1 == 1 && fr.r1 == 1)) continue;
        // Beyond the receiver's upper face the lower half (bit 0) touches the face.
        const int layer = fr.send_layer(fr.high ? bn : 1 - bn);
        const std::ptrdiff_t o =
            layer * fr.sa + (fr.g0 + fr.r0 * u + b0) * fr.s0 + (fr.g1 + fr.r1 * w + b1) * fr.s1;
        for (int v = 0; v < vars; ++v) child[static_cast<std::size_t>(v)] = base[o + v * fr.sv];
        fr.transfer->add_child_to_parent(child.data(), bits, parent.data());
      }
      const std::size_t c = static_cast<std::size_t>(u) * static_cast<std::size_t>(fr.h1) +
                            static_cast<std::size_t>(w);
      for (int v = 0; v < vars; ++v) out[v * per_var + c] = parent[static_cast<std::size_t>(v)];
    }
}

// Edge ghosts next to the cells [ulo, uhi] x [wlo, whi] of plane `g` continue them (across a
// level jump the sender has no matching ghost layer to send).
void extend_edges(const FaceFrame& fr, double* g, int ulo, int uhi, int wlo, int whi) {
  for (int u = fr.lo0; u <= fr.hi0; ++u)
    for (int w = fr.lo1; w <= fr.hi1; ++w) {
      const int cu = clamp_index(u, fr.n0), cw = clamp_index(w, fr.n1);
      const bool edge = cu != u || cw != w;
      if (edge && cu >= ulo && cu <= uhi && cw >= wlo && cw <= whi)
        g[u * fr.s0 + w * fr.s1] = g[cu * fr.s0 + cw * fr.s1];
    }
}

}  // namespace

std::size_t payload_values(const FaceFrame& fr, LinkKind kind) {
  if (kind == LinkKind::prolong)
    return static_cast<std::size_t>(fr.coarse_layers + 1) * static_cast<std::size_t>(fr.h0 + 2) *
           static_cast<std::size_t>(fr.h1 + 2);
  if (kind == LinkKind::average)
    return static_cast<std::size_t>(fr.g) * static_cast<std::size_t>(fr.h0) *
           static_cast<std::size_t>(fr.h1);
  return kind == LinkKind::same || is_boundary(kind)
             ? fr.same_values()
             : static_cast<std::size_t>(fr.h0) * static_cast<std::size_t>(fr.h1);
}

// Writes the payload of one link for variables first .. first + vars - 1 of `src`.
// miniAMR's level jumps exist only with one ghost layer (the constructor checks), so their
// cases use depth 0 and the 1-based interior indices of that layout; per-volume jumps have
// their own functions above.
void pack_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, const double* src, int first,
               int vars, double* out) {
  if (kind == LinkKind::prolong) return pack_prolong(fr, q0, q1, src, first, vars, out);
  if (kind == LinkKind::average) return pack_restrict(fr, src, first, vars, out);
  if (kind == LinkKind::child) return pack_child(fr, q0, q1, src, first, vars, out);
  if (kind == LinkKind::parent) return pack_parent(fr, src, first, vars, out);
  const std::ptrdiff_t s0 = fr.s0, s1 = fr.s1;
  for (int v = first; v < first + vars; ++v) {
    if (kind == LinkKind::same) {
      for (int d = 0; d < fr.g; ++d) {
        const double* p = fr.plane(src, v, fr.send_layer(d));
        for (int u = fr.lo0; u <= fr.hi0; ++u) {
          const double* row = p + u * s0;
          for (int w = fr.lo1; w <= fr.hi1; ++w) *out++ = row[w * s1];
        }
      }
      continue;
    }
    const double* p = fr.plane(src, v, fr.send_layer(0));
    if (kind == LinkKind::from_coarse) {
      for (int u = 1; u <= fr.h0; ++u) {
        const double* row = p + (q0 * fr.h0 + u) * s0 + q1 * fr.h1 * s1;
        for (int w = 1; w <= fr.h1; ++w) *out++ = row[w * s1];
      }
    } else {
      for (int u = 1; u <= fr.h0; ++u) {
        const double* a = p + (2 * u - 1) * s0;
        const double* b = a + s0;
        for (int w = 1; w <= fr.h1; ++w) {
          const std::ptrdiff_t c = (2 * w - 1) * s1;
          *out++ = a[c] + a[c + s1] + b[c] + b[c + s1];
        }
      }
    }
  }
}

// Stores a payload made by pack_link into the receiver's ghost cells.
void unpack_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, double* dst, int first,
                 int vars, const double* in) {
  if (kind == LinkKind::prolong) return unpack_prolong(fr, dst, first, vars, in);
  if (kind == LinkKind::average || kind == LinkKind::parent)
    return unpack_restrict(fr, q0, q1, dst, first, vars, in);
  if (kind == LinkKind::child) return unpack_child(fr, dst, first, vars, in);
  const std::ptrdiff_t s0 = fr.s0, s1 = fr.s1;
  for (int v = first; v < first + vars; ++v) {
    if (kind == LinkKind::same) {
      for (int d = 0; d < fr.g; ++d) {
        double* g = fr.plane(dst, v, fr.ghost_layer(d));
        for (int u = fr.lo0; u <= fr.hi0; ++u) {
          double* row = g + u * s0;
          for (int w = fr.lo1; w <= fr.hi1; ++w) row[w * s1] = *in++;
        }
      }
      continue;
    }
    double* g = fr.plane(dst, v, fr.ghost_layer(0));
    if (kind == LinkKind::from_coarse) {
      for (int u = 1; u <= fr.h0; ++u) {
        double* a = g + (2 * u - 1) * s0;
        double* b = a + s0;
        for (int w = 1; w <= fr.h1; ++w) {
          const double value = *in++ / 4.0;
          const std::ptrdiff_t c = (2 * w - 1) * s1;
          a[c] = value;
          a[c + s1] = value;
          b[c] = value;
          b[c + s1] = value;
        }
      }
      if (fr.extended()) extend_edges(fr, g, 1, fr.n0, 1, fr.n1);
    } else {
      for (int u = 1; u <= fr.h0; ++u) {
        double* row = g + (q0 * fr.h0 + u) * s0 + q1 * fr.h1 * s1;
        for (int w = 1; w <= fr.h1; ++w) row[w * s1] = *in++;
      }
      if (fr.extended())
        extend_edges(fr, g, q0 * fr.h0 + 1, q0 * fr.h0 + fr.h0, q1 * fr.h1 + 1, q1 * fr.h1 + fr.h1);
    }
  }
}

// An on-rank link: same-level faces and boundaries copy plane to plane; level jumps go
// through the payload so that they give exactly what a message would. A reflecting boundary
// negates the variables v with vector_axis[v] == the face's axis.
void copy_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, const double* src, double* dst,
               int first, int vars, const std::vector<int>& vector_axis) {
  if (kind == LinkKind::same || is_boundary(kind)) {
    const int count = fr.hi1 - fr.lo1 + 1;
    for (int v = first; v < first + vars; ++v) {
      const bool normal = static_cast<std::size_t>(v) < vector_axis.size() &&
                          vector_axis[static_cast<std::size_t>(v)] == fr.axis;
      const double sign = kind == LinkKind::reflecting && normal ? -1.0 : 1.0;
      for (int d = 0; d < fr.g; ++d) {
        const int layer = kind == LinkKind::same ? fr.send_layer(d) : fr.own_layer(kind, d);
        const double* p = fr.plane(src, v, layer);
        double* g = fr.plane(dst, v, fr.ghost_layer(d));
        if (fr.s0 == 1 && sign > 0) {  // y and z faces: x rows are contiguous (short: no memmove)
          const int length = fr.hi0 - fr.lo0 + 1;
          for (int w = fr.lo1; w <= fr.hi1; ++w) {
            const std::ptrdiff_t row = fr.lo0 + w * fr.s1;
            for (int u = 0; u < length; ++u) g[row + u] = p[row + u];
          }
          continue;
        }
        for (int u = fr.lo0; u <= fr.hi0; ++u) {
          const std::ptrdiff_t row = u * fr.s0 + fr.lo1 * fr.s1;
          if (sign < 0) {
            for (int w = 0; w < count; ++w) g[row + w * fr.s1] = -p[row + w * fr.s1];
          } else {
            for (int w = 0; w < count; ++w) g[row + w * fr.s1] = p[row + w * fr.s1];
          }
        }
      }
    }
    return;
  }
  thread_local std::vector<double> payload;
  payload.resize(payload_values(fr, kind) * static_cast<std::size_t>(vars));
  pack_link(fr, kind, q0, q1, src, first, vars, payload.data());
  unpack_link(fr, kind, q0, q1, dst, first, vars, payload.data());
}
}  // namespace tessera::halo_payload
