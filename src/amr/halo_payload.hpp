#pragma once
// What one link of an adaptive mesh's ghost exchange carries (internal to src/amr): the
// geometry of a receiver's face (FaceFrame), the kinds of link, and the functions that pack
// a sender's cells into a payload and unpack it into the receiver's ghosts. The payload is
// what the receiver stores, so one pair of functions serves messages and on-rank level jumps
// alike, and remote and local faces give the same bits. Pure functions on block memory:
// callable from any task, concurrently on disjoint blocks.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/cell_transfer.hpp"

namespace tessera::halo_payload {

enum class LinkKind : std::uint8_t {
  same,         // same level: the sender's adjacent layers
  from_coarse,  // receiver is finer: the sender's quarter face, spread as v/4 over 2x2
  from_fine,    // receiver is coarser: 2x2 sums of the sender's face into one quarter
  outflow,      // domain boundary: the receiver's own adjacent layer, in every ghost layer
  reflecting,   // domain boundary: the receiver's own layers mirrored, normal component negated
  prolong,      // receiver is finer, per-volume: limited-linear prolongation of coarse cells
  average,      // receiver is coarser, per-volume: volume averages of 2x2x2 fine cells
  child,        // receiver is finer, custom: the solver's child of each coarse cell
  parent,       // receiver is coarser, custom: the solver's parent of 2x2x2 fine cells
};

inline bool is_boundary(LinkKind kind) {
  return kind == LinkKind::outflow || kind == LinkKind::reflecting;
}

// Geometry of one receiver face: axis, tangential axes, index ranges and memory strides.
// Indices here count from the first ghost layer (0 .. cells + 2 ghost - 1, the interior from
// the ghost width), which keeps the layer arithmetic free of signs: cell (layer, u, w) of
// variable v sits at origin + v * sv + layer * sa + u * s0 + w * s1 of the block's
// BlockLayout. Ghost layers are counted by depth d = 0 (next to the face) .. layers - 1.
struct FaceFrame {
  int axis, t0, t1;
  int n0, n1, h0, h1;
  int r0, r1;  // fine cells per coarse cell along t0, t1 across a level jump: 2, or 1 (flat)
  int lo0, hi0, lo1, hi1;  // tangential ranges of a same-level face (ghosts when extended)
  int n, g;                // cells and ghost layers along the axis
  int g0, g1;              // ghost layers along the tangential axes (interior offsets)
  int coarse_layers;       // coarse layers covering the fine ghosts (per-volume level jumps)
  bool high;               // the face is the axis' upper face
  std::ptrdiff_t origin;   // BlockLayout offset of the first ghost cell (-g, -g, -g)
  std::ptrdiff_t sv, sa, s0, s1;
  const CellTransfer* transfer = nullptr;  // custom level jumps (child, parent)

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
    const BlockLayout layout = s.layout();
    const std::ptrdiff_t stride[3] = {1, layout.stride_y(), layout.stride_z()};
    origin = layout.index(0, -s.ghost[0], -s.ghost[1], -s.ghost[2]);
    sv = layout.stride_var();
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
    return block + origin + v * sv + layer * sa;
  }
  std::size_t same_values() const {
    return static_cast<std::size_t>(hi0 - lo0 + 1) * static_cast<std::size_t>(hi1 - lo1 + 1) *
           static_cast<std::size_t>(g);
  }
  bool extended() const { return lo0 == 0 || lo1 == 0; }
};

/// Doubles per variable the payload of a link of `kind` across frame `fr` holds.
std::size_t payload_values(const FaceFrame& fr, LinkKind kind);

/// Writes the payload of one link for variables first .. first + vars - 1 of `src`; (q0, q1)
/// is the quarter of the coarse block's face across a level jump.
void pack_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, const double* src, int first,
               int vars, double* out);

/// Stores a payload made by pack_link into the receiver's ghost cells.
void unpack_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, double* dst, int first,
                 int vars, const double* in);

/// An on-rank link from `src` into `dst`'s ghosts (the receiver's own block for a boundary).
/// A reflecting boundary negates the variables v with vector_axis[v] == the face's axis.
void copy_link(const FaceFrame& fr, LinkKind kind, int q0, int q1, const double* src, double* dst,
               int first, int vars, const std::vector<int>& vector_axis);

}  // namespace tessera::halo_payload
