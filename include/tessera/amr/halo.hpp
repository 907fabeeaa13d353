#pragma once
// Ghost-cell exchange on an adaptive mesh (layer `amr`), as tasks.
//
// Every ghost face of every local block is filled from the face neighbour(s), as miniAMR
// does it (values are per-cell amounts, so level jumps conserve the 7-point sum):
//   same level      the neighbour's adjacent layer of cells;
//   from coarser    each coarse face cell v fills the 2x2 fine ghost cells it covers with v/4;
//   from finer      each coarse ghost cell is the sum of the 4 fine face cells it covers;
//   domain boundary outflow (default): every ghost layer is the block's own adjacent layer;
//                   reflecting: ghost layer d mirrors interior layer d, with the sign of
//                   the face's normal vector components (AmrHaloOptions::vector_axis) flipped.
// Periodic domains have no boundary faces (Forest's `periodic`). With several ghost layers
// (BlockShape::ghost) a same-level neighbour sends as many of its layers. Level jumps follow
// AmrHaloOptions::level_jumps: miniAMR's per-cell amounts above (one ghost layer; the
// constructor throws std::logic_error otherwise), or, for per-volume quantities (densities),
//   from coarser    conservative limited-linear prolongation: the coarse sender packs its
//                   cells covering the fine ghosts plus one layer around them (clamped to its
//                   interior); the fine receiver adds, per coarse cell, minmod-limited slopes
//                   along the three axes (the normal slope next to the face uses the volume
//                   average of the receiver's own adjacent cells), so the 2x2x2 fine cells
//                   of a coarse cell average to it;
//   from finer      the volume average of the 2x2x2 fine cells each coarse ghost covers
// with g ghost layers along an axis whose blocks have n cells, 2g <= n (and no corners),
// or, for cells whose values the solver transfers itself (CellTransfer, cell_transfer.hpp:
// e.g. DG elements),
//   from coarser    each fine ghost cell is the child of the coarse cell it lies in
//                   (CellTransfer::child_from_parent);
//   from finer      each coarse ghost cell is the parent of the 2x2x2 (2-D: 2x2) fine cells
//                   it covers (CellTransfer::add_child_to_parent, children in order)
// with one ghost layer, 2 <= n, no corners, and a variable group the size of the transfer's.
// Faces of a flat axis (ghost 0) exchange nothing.
// Faces between ranks travel in messages, by default one per (neighbour rank, axis) as
// in miniAMR; the sender packs exactly what the receiver stores (for a coarse receiver the
// fine sender packs the 2x2 sums, for a fine receiver the coarse sender packs its quarter
// of the face), so remote and local faces give the same bits.
//
// Tasks per exchange of one variable group: irecv, pack + isend per message, one task per
// block for its on-rank faces, unpack per message. Faces are exchanged in passes: one pass
// for all three axes with the 7-point stencil; x, then y, then z with the 27-point
// stencil, where the y pass also carries the x ghosts and the z pass the x and y ghosts so
// that edge and corner ghosts get filled (miniAMR's scheme). Across a level jump those
// edge ghosts continue the face ghosts they touch.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/cell_transfer.hpp"
#include "tessera/amr/forest.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"

namespace tessera {

/// How the ghosts beyond a domain boundary face are filled.
enum class BoundaryKind : std::uint8_t {
  outflow,     ///< zero gradient: copies of the adjacent interior layer
  reflecting,  ///< mirror image, normal component of a vector negated (a wall)
};

/// How ghosts are filled across a level jump (see the file comment).
enum class LevelJumpRule : std::uint8_t {
  per_cell_amount,  ///< miniAMR: v/4 from coarser, sums from finer; one ghost layer
  per_volume,       ///< limited-linear prolongation / volume average; any ghost width
  custom,           ///< AmrHaloOptions::transfer's child / parent; one ghost layer
};

/// How ghosts of an adaptive mesh are exchanged (the uniform mesh has its own HaloOptions).
struct AmrHaloOptions {
  /// Across level jumps.
  LevelJumpRule level_jumps = LevelJumpRule::per_cell_amount;
  /// With LevelJumpRule::custom: the solver's transfer (outlives the mesh); else unused.
  const CellTransfer* transfer = nullptr;
  /// Per domain face (0 = -x ... 5 = +z; see kBlockFaces).
  std::array<BoundaryKind, 6> boundary{};
  /// Per variable: the axis of the vector it is a component of (momentum x is 0), or -1.
  /// A reflecting face of axis a negates the variables whose entry is a. Empty: none.
  std::vector<int> vector_axis;
  /// Fill edge and corner ghosts too (needed by the 27-point stencil).
  bool corners = false;
  /// One message per face instead of one per (neighbour rank, axis) (miniAMR --send_faces).
  bool send_faces = false;
  /// With send_faces: at most this many messages per (neighbour rank, axis); 0 = no limit.
  int max_comm_tasks = 0;
  /// A buffer per axis instead of one per neighbour rank shared by the three axes (which
  /// orders the axes' messages one after the other).
  bool separate_buffers = false;
};

/// Handles that outlive exchange plans: plans are rebuilt after every mesh change, their
/// message buffers reuse these handles instead of creating new ones. Main thread only.
class HandlePool {
 public:
  explicit HandlePool(Runtime& runtime, const char* name) : runtime_(runtime), name_(name) {}
  /// Makes every handle available again (the next plan reuses them in order).
  void reset() { next_ = 0; }
  Handle next();

 private:
  Runtime& runtime_;
  const char* name_;
  std::vector<Handle> handles_;
  std::size_t next_ = 0;
};

/// Per-exchange message and face counts of one rank.
struct HaloCounts {
  std::int64_t local_faces = 0;     ///< faces copied on the rank (boundary faces included)
  std::int64_t remote_faces = 0;    ///< faces received from other ranks
  std::int64_t messages = 0;        ///< messages received
  std::int64_t values_per_var = 0;  ///< doubles received per variable
};

/// The exchange plan of one mesh. Build after every change of the forest.
class AmrHalo {
 public:
  /// `slots[i]` is the BlockStore slot of local block i. `tags` must be the same on every
  /// rank and hold at least tags_needed() tags. Main thread only; not collective.
  AmrHalo(const Forest& forest, BlockStore& store, std::span<const std::int32_t> slots, Comm& comm,
          const TagSpace& tags, HandlePool& buffers, AmrHaloOptions options);
  ~AmrHalo();
  AmrHalo(const AmrHalo&) = delete;
  AmrHalo& operator=(const AmrHalo&) = delete;

  /// Tags an exchange may use.
  static int tags_needed() { return 3 * kMaxChunks; }

  /// Submits the tasks that fill every ghost cell of variable group g of every local block.
  /// Tasks on skeleton blocks and messages get exec.skeleton_priority(). The plan must
  /// outlive the tasks it submitted.
  void submit(int g, Exec& exec);

  /// True if local block i sends faces to another rank (its tasks are on the skeleton).
  bool is_skeleton(std::int32_t i) const { return skeleton_[static_cast<std::size_t>(i)] != 0; }
  const HaloCounts& counts() const { return counts_; }

 private:
  static constexpr int kMaxChunks = 4096;
  struct Link;
  struct Message;
  struct LocalFill;
  struct Buffer;
  struct FaceFrames;
  void build_local(const Forest& forest, std::span<const std::int32_t> slots);
  void build_remote(const Forest& forest, std::span<const std::int32_t> slots);
  void assign_buffers(HandlePool& pool);
  void submit_pass(int g, int first_axis, int last_axis, Exec& exec);

  BlockStore& store_;
  Comm& comm_;
  TagSpace tags_;
  AmrHaloOptions options_;
  std::vector<LocalFill> local_;
  std::vector<Message> sends_;
  std::vector<Message> receives_;
  std::vector<Buffer> buffers_;
  std::unique_ptr<FaceFrames> frames_;
  std::vector<std::uint8_t> skeleton_;
  HaloCounts counts_;
};

}  // namespace tessera
