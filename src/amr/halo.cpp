// Ghost exchange plan and tasks. A Link moves one face (or one quarter of a face, across a
// level jump) from a sender block to a receiver block; the payload is what the receiver
// stores, so one pair of functions (pack_link / unpack_link) serves messages and on-rank
// level jumps alike (on-rank same-level faces are copied plane to plane, same values).
// Tasks hold raw pointers to block data taken when the plan is built: slots never move, and
// the BlockStore's tables are only touched by the main thread.
#include "tessera/amr/halo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>
#include <stdexcept>
#include <tuple>

namespace tessera {

namespace {

enum class LinkKind : std::uint8_t {
  same,         // same level: the sender's adjacent layers
  from_coarse,  // receiver is finer: the sender's quarter face, spread as v/4 over 2x2
  from_fine,    // receiver is coarser: 2x2 sums of the sender's face into one quarter
  outflow,      // domain boundary: the receiver's own adjacent layer, in every ghost layer
  reflecting,   // domain boundary: the receiver's own layers mirrored, normal component negated
  prolong,      // receiver is finer, per-volume: limited-linear prolongation of coarse cells
  average,      // receiver is coarser, per-volume: volume averages of 2x2x2 fine cells
};

bool is_boundary(LinkKind kind) {
  return kind == LinkKind::outflow || kind == LinkKind::reflecting;
}

// Geometry of one receiver face: axis, tangential axes, index ranges and memory strides.
// Cell (layer, u, w) of variable v sits at v * sv + layer * sa + u * s0 + w * s1. Ghost
// layers are counted by depth d = 0 (next to the face) .. layers - 1.
struct FaceFrame {
  int axis, t0, t1;
  int n0, n1, h0, h1;
  int r0, r1;  // fine cells per coarse cell along t0, t1 across a level jump: 2, or 1 (flat)
  int lo0, hi0, lo1, hi1;  // tangential ranges of a same-level face (ghosts when extended)
  int n, g;                // cells and ghost layers along the axis
  int g0, g1;              // ghost layers along the tangential axes (interior offsets)
  int coarse_layers;       // coarse layers covering the fine ghosts (per-volume level jumps)
  bool high;               // the face is the axis' upper face
  std::ptrdiff_t sv, sa, s0, s1;

  FaceFrame() = default;
  FaceFrame(const BlockShape& s, int face, bool corners) {
    axis = face / 2;
    t0 = axis == 0 ? 1 : 0;
    t1 = axis == 2 ? 1 : 2;
    n0 = s.cells[t0];
    n1 = s.cells[t1];
    r0 = s.ghost[t0] == 0 ? 1 : 2;
    r1 = s.ghost[t1] == 0 ? 1 : 2;
    h0 = n0 / r0;
    h1 = n1 / r1;
    // With corners, a pass along `axis` carries the ghosts of the axes exchanged before it.
    const int g0 = s.ghost[t0], g1 = s.ghost[t1];
    const bool ext0 = corners && t0 < axis, ext1 = corners && t1 < axis;
    lo0 = ext0 ? 0 : g0;
    hi0 = ext0 ? n0 + 2 * g0 - 1 : g0 + n0 - 1;
    lo1 = ext1 ? 0 : g1;
    hi1 = ext1 ? n1 + 2 * g1 - 1 : g1 + n1 - 1;
    n = s.cells[axis];
    g = s.ghost[axis];
    this->g0 = g0;
    this->g1 = g1;
    coarse_layers = (g + 1) / 2;
    high = face % 2 == 1;
    const std::ptrdiff_t stride[3] = {static_cast<std::ptrdiff_t>(s.stride_i()),
                                      static_cast<std::ptrdiff_t>(s.stride_j()), 1};
    sv = static_cast<std::ptrdiff_t>(s.var_stride());
    sa = stride[axis];
    s0 = stride[t0];
    s1 = stride[t1];
  }
  /// Receiver's ghost layer at depth d.
  int ghost_layer(int d) const { return high ? g + n + d : g - 1 - d; }
  /// Sender's interior layer that fills ghost depth d (the sender lies beyond the face).
  int send_layer(int d) const { return high ? g + d : g + n - 1 - d; }
  /// Receiver's own interior layer that fills ghost depth d at a domain boundary.
  int own_layer(LinkKind kind, int d) const {
    if (kind == LinkKind::outflow) return high ? g + n - 1 : g;
    return high ? g + n - 1 - d : g + d;
  }
  /// Start of variable v's plane `layer` along the axis.
  template <class T>
  T* plane(T* block, int v, int layer) const {
    return block + v * sv + layer * sa;
  }
  std::size_t same_values() const {
    return static_cast<std::size_t>(hi0 - lo0 + 1) * static_cast<std::size_t>(hi1 - lo1 + 1) *
           static_cast<std::size_t>(g);
  }
  bool extended() const { return lo0 == 0 || lo1 == 0; }
};

// Sum of the r0 x r1 fine cells at p[o] (the 3-D order of operations when both are 2).
double face_sum(const FaceFrame& fr, const double* p, std::ptrdiff_t o) {
  if (fr.r1 == 1) return fr.r0 == 1 ? p[o] : p[o] + p[o + fr.s0];
  if (fr.r0 == 1) return p[o] + p[o + fr.s1];
  return (p[o] + p[o + fr.s0]) + (p[o + fr.s1] + p[o + fr.s0 + fr.s1]);
}

int clamp_index(int x, int n) {
  return std::clamp(x, 1, n);
}

}  // namespace

struct AmrHalo::Link {
  const double* src = nullptr;      // sender's data (set where the sender is local)
  double* dst = nullptr;            // receiver's data (set where the receiver is local)
  std::int32_t sender_slot = -1;    // where the sender is local (the receiver's for boundary)
  std::int32_t receiver_slot = -1;  // where the receiver is local
  std::int8_t face = 0;             // receiver's face
  LinkKind kind = LinkKind::same;
  std::int8_t q0 = 0, q1 = 0;  // quarter of the coarse block's face, across a level jump
  std::int64_t sender_gid = 0, receiver_gid = 0;
  std::size_t offset = 0;  // values per variable before this link in its message
};

struct AmrHalo::Message {
  int peer = 0;
  int axis = 0;
  int chunk = 0;
  std::vector<Link> links;
  std::size_t values_per_var = 0;
  int buffer = 0;
};

struct AmrHalo::LocalFill {
  double* dst = nullptr;
  std::int32_t receiver_slot = 0;
  bool skeleton = false;
  std::vector<Link> links;  // on-rank senders and boundary faces
};

struct AmrHalo::FaceFrames {
  FaceFrame face[kBlockFaces];
};

struct AmrHalo::Buffer {
  std::vector<double> data;
  Handle handle;
};

namespace {

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

// Writes the payload of one link for variables first .. first + vars - 1 of `src`.
// miniAMR's level jumps exist only with one ghost layer (the constructor checks), so their
// cases use depth 0 and the 1-based interior indices of that layout; per-volume jumps have
// their own functions above.
void pack_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, const double* src, int first,
               int vars, double* out) {
  if (kind == LinkKind::prolong) return pack_prolong(fr, q0, q1, src, first, vars, out);
  if (kind == LinkKind::average) return pack_restrict(fr, src, first, vars, out);
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

// Stores a payload made by pack_link into the receiver's ghost cells.
void unpack_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, double* dst, int first,
                 int vars, const double* in) {
  if (kind == LinkKind::prolong) return unpack_prolong(fr, dst, first, vars, in);
  if (kind == LinkKind::average) return unpack_restrict(fr, q0, q1, dst, first, vars, in);
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
        for (int u = fr.lo0; u <= fr.hi0; ++u) {
          const std::ptrdiff_t row = u * fr.s0 + fr.lo1 * fr.s1;
          if (sign < 0) {
            for (int w = 0; w < count; ++w) g[row + w * fr.s1] = -p[row + w * fr.s1];
          } else if (fr.s1 == 1) {  // x and y faces: rows are contiguous (short: no memmove)
            for (int w = 0; w < count; ++w) g[row + w] = p[row + w];
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

// Receiver-side description of how a neighbour across `face` feeds a block.
struct Relation {
  LinkKind kind;
  int q0, q1;
};

// Quarter of the coarse block `coarse`'s face that the fine block `fine` covers.
std::pair<int, int> quarter_of(const BlockPlace& fine, const BlockPlace& coarse, int face) {
  const int axis = face / 2;
  const int t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
  return {static_cast<int>((fine.origin[t0] - coarse.origin[t0]) / fine.length()),
          static_cast<int>((fine.origin[t1] - coarse.origin[t1]) / fine.length())};
}

}  // namespace

Handle HandlePool::next() {
  if (next_ == handles_.size())
    handles_.push_back(runtime_.create_handle(fmt::format("{}{}", name_, handles_.size())));
  return handles_[next_++];
}

AmrHalo::AmrHalo(const Forest& forest, BlockStore& store, std::span<const std::int32_t> slots,
                 Comm& comm, const TagSpace& tags, HandlePool& buffers, AmrHaloOptions options)
    : store_(store),
      comm_(comm),
      tags_(tags),
      options_(options),
      frames_(std::make_unique<FaceFrames>()) {
  for (int f = 0; f < kBlockFaces; ++f)
    frames_->face[f] = FaceFrame(store.shape(), f, options.corners);
  if (options.level_jumps == LevelJumpRule::per_volume) {
    const BlockShape& s = store.shape();
    for (int a = 0; a < 3; ++a)
      if (s.ghost[a] > 0 && 2 * s.ghost[a] > s.cells[a])
        throw std::logic_error("AmrHalo: per-volume level jumps need 2 * ghost <= cells per axis");
    if (options.corners)
      throw std::logic_error("AmrHalo: per-volume level jumps fill face ghosts only (no corners)");
  }
  skeleton_.assign(static_cast<std::size_t>(forest.local_count()), 0);
  build_local(forest, slots);
  build_remote(forest, slots);
  assign_buffers(buffers);
}

AmrHalo::~AmrHalo() = default;

void AmrHalo::build_local(const Forest& forest, std::span<const std::int32_t> slots) {
  const std::int32_t n = forest.local_count();
  const bool per_volume = options_.level_jumps == LevelJumpRule::per_volume;
  const LinkKind from_coarse = per_volume ? LinkKind::prolong : LinkKind::from_coarse;
  const LinkKind from_fine = per_volume ? LinkKind::average : LinkKind::from_fine;
  local_.clear();
  local_.resize(static_cast<std::size_t>(n));
  for (std::int32_t b = 0; b < n; ++b) {
    LocalFill& fill = local_[static_cast<std::size_t>(b)];
    fill.receiver_slot = slots[static_cast<std::size_t>(b)];
    fill.dst = store_.data(fill.receiver_slot);
    const BlockPlace& me = forest.local(b);
    for (int f = 0; f < kBlockFaces; ++f) {
      if (store_.shape().ghost[static_cast<std::size_t>(f / 2)] == 0) continue;  // flat axis
      const FaceNeighbors& nb = forest.neighbors(b, f);
      if ((nb.kind == FaceKind::coarser || nb.kind == FaceKind::finer) && !per_volume &&
          store_.shape().wide_ghosts())
        throw std::logic_error(
            "AmrHalo: a level jump needs one ghost layer per axis (BlockShape::ghost)");
      const auto add = [&](BlockRef sender, Relation rel) {
        Link link;
        link.face = static_cast<std::int8_t>(f);
        link.kind = rel.kind;
        link.q0 = static_cast<std::int8_t>(rel.q0);
        link.q1 = static_cast<std::int8_t>(rel.q1);
        link.dst = fill.dst;
        link.receiver_slot = fill.receiver_slot;
        if (is_boundary(rel.kind) || !sender.ghost) {
          link.sender_slot = is_boundary(rel.kind) ? fill.receiver_slot
                                                   : slots[static_cast<std::size_t>(sender.index)];
          link.src = store_.data(link.sender_slot);
          fill.links.push_back(link);
          ++counts_.local_faces;
        }
      };
      switch (nb.kind) {
        case FaceKind::boundary:
          add(BlockRef{},
              {options_.boundary[static_cast<std::size_t>(f)] == BoundaryKind::reflecting
                   ? LinkKind::reflecting
                   : LinkKind::outflow,
               0, 0});
          break;
        case FaceKind::same:
          add(nb.blocks[0], {LinkKind::same, 0, 0});
          break;
        case FaceKind::coarser: {
          const auto [q0, q1] = quarter_of(me, forest.place(nb.blocks[0]), f);
          add(nb.blocks[0], {from_coarse, q0, q1});
          break;
        }
        case FaceKind::finer:
          for (int h = 0; h < nb.count(); ++h)
            add(nb.blocks[static_cast<std::size_t>(h)], {from_fine, h % 2, h / 2});
          break;
      }
    }
  }
}

void AmrHalo::build_remote(const Forest& forest, std::span<const std::int32_t> slots) {
  // (peer, axis) -> links, for both directions.
  std::map<std::pair<int, int>, std::vector<Link>> send_links, recv_links;
  const std::int32_t n = forest.local_count();
  const bool per_volume = options_.level_jumps == LevelJumpRule::per_volume;
  const LinkKind from_coarse = per_volume ? LinkKind::prolong : LinkKind::from_coarse;
  const LinkKind from_fine = per_volume ? LinkKind::average : LinkKind::from_fine;
  for (std::int32_t b = 0; b < n; ++b) {
    const BlockPlace& me = forest.local(b);
    const std::int64_t my_gid = forest.global_index(BlockRef{false, b});
    const std::int32_t slot = slots[static_cast<std::size_t>(b)];
    double* data = store_.data(slot);
    for (int f = 0; f < kBlockFaces; ++f) {
      if (store_.shape().ghost[static_cast<std::size_t>(f / 2)] == 0) continue;  // flat axis
      const FaceNeighbors& nb = forest.neighbors(b, f);
      for (int h = 0; h < nb.count(); ++h) {
        const BlockRef other = nb.blocks[static_cast<std::size_t>(h)];
        if (!other.ghost) continue;
        const BlockPlace& them = forest.ghost(other.index);
        const int peer = forest.ghost_owner(other.index);
        const std::int64_t their_gid = forest.global_index(other);
        // This block receives across face f ...
        Link in;
        in.face = static_cast<std::int8_t>(f);
        in.dst = data;
        in.receiver_slot = slot;
        in.sender_gid = their_gid;
        in.receiver_gid = my_gid;
        // ... and sends across face f to a receiver whose face is f ^ 1.
        Link out;
        out.face = static_cast<std::int8_t>(f ^ 1);
        out.src = data;
        out.sender_slot = slot;
        out.sender_gid = my_gid;
        out.receiver_gid = their_gid;
        if (nb.kind == FaceKind::same) {
          in.kind = out.kind = LinkKind::same;
        } else if (nb.kind == FaceKind::coarser) {
          const auto [q0, q1] = quarter_of(me, them, f);
          in.kind = from_coarse;
          out.kind = from_fine;
          in.q0 = out.q0 = static_cast<std::int8_t>(q0);
          in.q1 = out.q1 = static_cast<std::int8_t>(q1);
        } else {
          in.kind = from_fine;
          out.kind = from_coarse;
          in.q0 = out.q0 = static_cast<std::int8_t>(h % 2);
          in.q1 = out.q1 = static_cast<std::int8_t>(h / 2);
        }
        recv_links[{peer, f / 2}].push_back(in);
        send_links[{peer, f / 2}].push_back(out);
        skeleton_[static_cast<std::size_t>(b)] = 1;
      }
    }
  }

  const auto make_messages = [&](std::map<std::pair<int, int>, std::vector<Link>>& groups,
                                 std::vector<Message>& out) {
    out.clear();
    for (auto& [key, links] : groups) {
      // Both sides order a (peer, axis) pair's faces the same way: by sender, then receiver,
      // then the receiver's face (on a periodic axis two blocks can meet across two faces).
      std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) {
        return std::tie(a.sender_gid, a.receiver_gid, a.face) <
               std::tie(b.sender_gid, b.receiver_gid, b.face);
      });
      std::size_t chunks = 1;
      if (options_.send_faces) {
        chunks = links.size();
        if (options_.max_comm_tasks > 0)
          chunks = std::min(chunks, static_cast<std::size_t>(options_.max_comm_tasks));
        chunks = std::min(chunks, static_cast<std::size_t>(kMaxChunks));
      }
      for (std::size_t c = 0; c < chunks; ++c) {
        Message m;
        m.peer = key.first;
        m.axis = key.second;
        m.chunk = static_cast<int>(c);
        const std::size_t begin = c * links.size() / chunks, end = (c + 1) * links.size() / chunks;
        for (std::size_t i = begin; i < end; ++i) {
          Link link = links[i];
          link.offset = m.values_per_var;
          m.values_per_var += payload_values(frames_->face[link.face], link.kind);
          m.links.push_back(link);
        }
        out.push_back(std::move(m));
      }
    }
  };
  make_messages(send_links, sends_);
  make_messages(recv_links, receives_);
  for (std::size_t b = 0; b < local_.size(); ++b) local_[b].skeleton = skeleton_[b] != 0;
  for (const Message& m : receives_) {
    ++counts_.messages;
    counts_.remote_faces += static_cast<std::int64_t>(m.links.size());
    counts_.values_per_var += static_cast<std::int64_t>(m.values_per_var);
  }
}

void AmrHalo::assign_buffers(HandlePool& pool) {
  pool.reset();
  buffers_.clear();
  const auto group_vars = static_cast<std::size_t>(store_.shape().group_size);
  // Without separate buffers, the three axes' messages of one (peer, chunk) share a buffer.
  const auto assign = [&](std::vector<Message>& messages) {
    std::map<std::tuple<int, int, int>, int> shared;
    for (Message& m : messages) {
      const auto key = std::make_tuple(m.peer, m.chunk, options_.separate_buffers ? m.axis : -1);
      auto [it, fresh] = shared.try_emplace(key, static_cast<int>(buffers_.size()));
      if (fresh) buffers_.push_back(Buffer{{}, pool.next()});
      m.buffer = it->second;
      auto& data = buffers_[static_cast<std::size_t>(m.buffer)].data;
      data.resize(std::max(data.size(), m.values_per_var * group_vars));
    }
  };
  assign(sends_);
  assign(receives_);
}

void AmrHalo::submit(int g, Exec& exec) {
  if (options_.corners) {
    for (int axis = 0; axis < 3; ++axis) submit_pass(g, axis, axis, exec);
  } else {
    submit_pass(g, 0, 2, exec);
  }
}

void AmrHalo::submit_pass(int g, int first_axis, int last_axis, Exec& exec) {
  Runtime& runtime = comm_.runtime();
  const BlockShape& shape = store_.shape();
  const int first_var = shape.group_first(g);
  const int vars = shape.group_vars(g);
  const bool corners = options_.corners;
  const Priority skeleton = exec.skeleton_priority();
  const TaskAttributes comm_attr = Comm::comm_attributes(TaskAttributes(skeleton));
  BlockStore& store = store_;
  const FaceFrames* frames = frames_.get();

  // Handles a task reads to take a sender's face: its interior, and with corners the ghosts
  // of the axes exchanged before this face's axis.
  const auto add_sender_reads = [&](std::vector<Access>& acc, std::int32_t slot, int face_axis) {
    acc.push_back(read(store.interior(slot, g)));
    if (corners)
      for (int a = 0; a < face_axis; ++a) acc.push_back(read(store.ghosts(slot, g, a)));
  };

  const auto submit_unpacks = [&](int axis) {
    for (Message& m : receives_) {
      if (m.axis != axis) continue;
      Buffer& buf = buffers_[static_cast<std::size_t>(m.buffer)];
      std::vector<Access> acc{read(buf.handle)};
      for (const Link& link : m.links) {
        acc.push_back(write(store.ghosts(link.receiver_slot, g, axis)));
        if (link.kind == LinkKind::prolong)
          acc.push_back(read(store.interior(link.receiver_slot, g)));
      }
      const Message* msg = &m;
      const double* in = buf.data.data();
      runtime.submit(
          "halo_unpack", std::span<const Access>(acc),
          [msg, in, frames, first_var, vars] {
            for (const Link& link : msg->links)
              unpack_link(frames->face[link.face], link.kind, link.q0, link.q1, link.dst, first_var,
                          vars, in + link.offset * static_cast<std::size_t>(vars));
          },
          TaskAttributes(skeleton));
    }
  };

  for (int axis = first_axis; axis <= last_axis; ++axis) {
    for (Message& m : receives_) {
      if (m.axis != axis) continue;
      Buffer& buf = buffers_[static_cast<std::size_t>(m.buffer)];
      comm_.irecv(buf.handle, buf.data.data(), m.values_per_var * vars * sizeof(double), m.peer,
                  tags_.tag(m.axis * kMaxChunks + m.chunk), comm_attr, "halo_recv");
    }
    for (Message& m : sends_) {
      if (m.axis != axis) continue;
      Buffer& buf = buffers_[static_cast<std::size_t>(m.buffer)];
      std::vector<Access> acc{write(buf.handle)};
      for (const Link& link : m.links) add_sender_reads(acc, link.sender_slot, axis);
      const Message* msg = &m;
      double* out = buf.data.data();
      runtime.submit(
          "halo_pack", std::span<const Access>(acc),
          [msg, out, frames, first_var, vars] {
            for (const Link& link : msg->links)
              pack_link(frames->face[link.face], link.kind, link.q0, link.q1, link.src, first_var,
                        vars, out + link.offset * static_cast<std::size_t>(vars));
          },
          TaskAttributes(skeleton));
      comm_.isend(buf.handle, buf.data.data(), m.values_per_var * vars * sizeof(double), m.peer,
                  tags_.tag(m.axis * kMaxChunks + m.chunk), comm_attr, "halo_send");
    }
    if (!options_.separate_buffers) submit_unpacks(axis);
  }

  std::vector<Access> acc;
  for (LocalFill& fill : local_) {
    acc.clear();
    bool any = false;
    bool reads_own = false;
    bool writes[3] = {false, false, false};
    for (const Link& link : fill.links) {
      const int axis = link.face / 2;
      if (axis < first_axis || axis > last_axis) continue;
      any = true;
      writes[axis] = true;
      add_sender_reads(acc, link.sender_slot, axis);
      reads_own = reads_own || link.kind == LinkKind::prolong;
    }
    if (reads_own) acc.push_back(read(store.interior(fill.receiver_slot, g)));
    if (!any) continue;
    for (int a = first_axis; a <= last_axis; ++a)
      if (writes[a]) acc.push_back(write(store.ghosts(fill.receiver_slot, g, a)));
    const LocalFill* f = &fill;
    runtime.submit(
        "halo_local", std::span<const Access>(acc),
        [f, frames, first_var, vars, first_axis, last_axis, axes = &options_.vector_axis] {
          for (const Link& link : f->links) {
            const int axis = link.face / 2;
            if (axis < first_axis || axis > last_axis) continue;
            copy_link(frames->face[link.face], link.kind, link.q0, link.q1, link.src, link.dst,
                      first_var, vars, *axes);
          }
        },
        TaskAttributes(fill.skeleton ? skeleton : Priority::normal));
  }

  if (options_.separate_buffers)
    for (int axis = first_axis; axis <= last_axis; ++axis) submit_unpacks(axis);
}

}  // namespace tessera
