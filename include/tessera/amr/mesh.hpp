#pragma once
// AmrMesh: an adaptive block mesh with data (layer `amr`). It ties together the forest
// (shape and ownership), the block data (BlockStore), the ghost exchange plan and, when
// asked, the flux correction plan, and turns every change of the mesh into tasks: split,
// merge, and block migration between ranks (pack, send, receive, unpack). Split and merge
// follow the halo's level-jump rule (AmrHaloOptions::level_jumps):
//   per_cell_amount (miniAMR)  children get parent / 8 per cell, parent = sum of 2x2x2;
//   per_volume (densities)     children get the parent's limited-linear prolongation (minmod
//                              slopes per axis from the parent's face neighbours, its face
//                              ghosts included: exchange the data groups before adapt), so
//                              the 8 (2-D: 4) child cells average to the parent cell;
//                              parent = the mean of its 2x2x2 (2-D: 2x2) child cells.
//   custom (CellTransfer)     child cell (i, j, k) = transfer child (i % 2, j % 2, k % 2) of the
//                              parent cell it lies in; a parent cell = the transfer's parent of
//                              its 2x2x2 (2-D: 2x2) child cells (per variable group, one cell's
//                              group at a time); flux correction through the transfer too.
//
// All members are main-thread only; members that change the mesh are collective.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/flux_correction.hpp"
#include "tessera/amr/forest.hpp"
#include "tessera/amr/halo.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/block_index.hpp"
#include "tessera/mesh/block_view.hpp"
#include "tessera/mesh/ghost_exchange.hpp"

namespace tessera {

/// Shape of an AmrMesh: the level-0 brick, the cells and variables of every block, and how
/// ghosts are exchanged.
struct AmrMeshOptions {
  std::array<int, 3> root_blocks{1, 1, 1};  ///< level-0 blocks along x, y, z
  std::array<bool, 3> periodic{};           ///< axes along which the domain wraps around
  /// 3: octree forest; 2: quadtree forest (root_blocks[2] 1, shape one cell thick in z with
  /// no z ghosts, per-volume level jumps only).
  int dim = 3;
  BlockShape shape;
  AmrHaloOptions halo;
  /// When not empty: start from these leaves (all blocks in SFC order, e.g. read from a
  /// checkpoint) instead of the level-0 brick; see Forest's constructor for `partition`.
  std::vector<BlockPlace> leaves;
  std::vector<std::int64_t> partition;
  /// Variable groups 0 .. data_groups - 1 hold state that split, merge and migration carry;
  /// the others are scratch (contents unspecified after a mesh change). 0 = all groups.
  int data_groups = 0;
  /// Variables (from a group's first) whose fluxes a FluxCorrection plan corrects at
  /// coarse-fine faces (custom level jumps: flux values per face cell, the transfer's
  /// face_flux_values()); 0 = no plan.
  int corrected_vars = 0;
};

/// What one call to AmrMesh::adapt did on this rank.
struct AdaptCounts {
  std::int64_t split = 0;   ///< blocks split (into 8, 2-D: 4)
  std::int64_t merged = 0;  ///< families merged into 1
  /// Where each block came from, one per new local block (Forest::adapt's sources): what
  /// follows a block through the adaptation (its measured cost, amr/carried_costs.hpp).
  std::vector<AdaptSource> sources;
};

/// The adaptive mesh with its data. Not copyable. adapt() with per-cell amounts needs one
/// ghost layer per axis; per-volume needs no flat axis; migration works with any shape.
class AmrMesh {
 public:
  /// Collective. Creates the level-0 brick and a slot for every local block (contents
  /// unspecified). Reserves its message tags from `comm` (same order on every rank).
  AmrMesh(Comm& comm, Exec& exec, AmrMeshOptions options);
  ~AmrMesh();
  AmrMesh(const AmrMesh&) = delete;
  AmrMesh& operator=(const AmrMesh&) = delete;

  const Forest& forest() const { return *forest_; }
  const BlockShape& shape() const { return store_.shape(); }
  /// Every block's storage layout (shape().layout()): index cells with layout().index.
  const BlockLayout& layout() const { return store_.layout(); }
  /// Blocks of this rank (indices 0 .. local_block_count() - 1, in curve order).
  LocalBlockIndex local_block_count() const { return forest_->local_count(); }
  const BlockPlace& place(LocalBlockIndex b) const { return forest_->local(b); }
  /// Refinement level of local block b (0: a root block).
  int level(LocalBlockIndex b) const { return place(b).level; }
  /// Index among the cells of its level of local block b's cell (0, 0, 0), per axis.
  std::array<std::int64_t, 3> cell_origin(LocalBlockIndex b) const {
    const BlockPlace& p = place(b);
    const BlockShape& s = shape();
    return {p.origin[0] / p.length() * s.cells[0], p.origin[1] / p.length() * s.cells[1],
            p.origin[2] / p.length() * s.cells[2]};
  }
  /// Block data of local block b (in layout()). Stable until the mesh changes.
  double* data(LocalBlockIndex b) { return store_.data(slots_[static_cast<std::size_t>(b)]); }
  /// Block b for a kernel (as BlockField::view); valid until the mesh changes.
  BlockView view(LocalBlockIndex b) { return {&store_.layout(), data(b)}; }
  /// The interior cells of variable group g of block b.
  Handle interior(LocalBlockIndex b, int g = 0) const {
    return store_.interior(slots_[static_cast<std::size_t>(b)], g);
  }
  /// The ghost cells of group g of block b that the halo pass along `axis` fills.
  Handle ghosts(LocalBlockIndex b, int g, int axis) const {
    return store_.ghosts(slots_[static_cast<std::size_t>(b)], g, axis);
  }
  /// Every ghost handle of group g of block b (one per axis): what a task reading the
  /// ghosts (a stencil) declares (as BlockField::ghost_handles).
  std::span<const Handle> ghost_handles(LocalBlockIndex b, int g = 0) const {
    return store_.ghost_handles(slots_[static_cast<std::size_t>(b)], g);
  }
  /// True if local block b exchanges faces with another rank.
  bool is_skeleton(LocalBlockIndex b) const { return halo_->is_skeleton(b); }
  const HaloCounts& halo_counts() const { return halo_->counts(); }
  /// Largest number of blocks this rank held at any time (block slots in use).
  std::int32_t max_local_blocks() const { return store_.high_water(); }

  /// Submits the ghost exchange of variable group g (see AmrHalo).
  void exchange(int g) { halo_->submit(g, exec_); }

  /// The flux correction plan of the current mesh (AmrMeshOptions::corrected_vars > 0),
  /// else nullptr. Rebuilt with every mesh change.
  FluxCorrection* flux_correction() { return flux_.get(); }

  /// Collective. Waits for every task (the forest must not change under running tasks),
  /// applies `marks` (as Forest::adapt) and submits the split and merge tasks.
  AdaptCounts adapt(std::span<const std::int8_t> marks);

  /// Collective. Waits for every task, repartitions the forest so that every rank holds
  /// about as many blocks, and submits the tasks moving block interiors. Returns the
  /// number of blocks that changed rank, over all ranks.
  std::int64_t rebalance();
  /// The same with rank r holding the next counts[r] blocks of the curve (a cost balance,
  /// weighted_split); see Forest::partition_given.
  std::int64_t rebalance(std::span<const std::int64_t> counts);

  /// Collective. Waits for every task and moves the few blocks needed so that no family
  /// of sibling leaves is split between ranks (see Forest::gather_families); call before
  /// computing refinement marks. Returns the number of blocks moved, over all ranks.
  std::int64_t gather_families();

 private:
  void rebuild_halo();
  void migrate(const PartitionResult& moves);

  Comm& comm_;
  Exec& exec_;
  AmrHaloOptions halo_options_;
  std::unique_ptr<Forest> forest_;
  BlockStore store_;
  std::vector<std::int32_t> slots_;
  TagSpace halo_tags_;
  TagSpace migration_tags_;
  TagSpace flux_tags_;
  HandlePool halo_buffers_;
  HandlePool migration_handles_;
  HandlePool flux_handles_;
  int data_groups_ = 0;
  int corrected_vars_ = 0;
  std::unique_ptr<FluxCorrection> flux_;
  std::vector<std::vector<double>> migration_buffers_;
  std::unique_ptr<AmrHalo> halo_;
};

/// AmrMesh::exchange(group) behind GhostExchange (see mesh/ghost_exchange.hpp). The mesh
/// must outlive it.
class AmrGhostExchange final : public GhostExchange {
 public:
  AmrGhostExchange(AmrMesh& mesh, int group) : mesh_(mesh), group_(group) {}
  void submit() override { mesh_.exchange(group_); }

 private:
  AmrMesh& mesh_;
  int group_;
};

}  // namespace tessera
