#pragma once
// A multigrid level hierarchy: one uniform block mesh per level, each coarser level with half
// the cells per axis, its own halo exchange, and the transfers between neighbouring levels.

#include <memory>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/level_transfer.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/runtime/memory_estimate.hpp"

namespace tessera {

/// What a hierarchy is built from. Level 0 is the finest.
struct HierarchySpec {
  /// Cells per axis of the finest level (1 on a flat axis: 2-D problems keep z flat on
  /// every level).
  Int3 cells{1, 1, 1};
  /// The largest block (data tile) per axis: level l's blocks have min(block_cells,
  /// level cells) cells, so coarse levels keep the tile size and lose blocks until one
  /// block holds the whole level, then the block shrinks.
  Int3 block_cells{1, 1, 1};
  /// Number of levels (>= 1).
  int levels = 1;
  Periodicity periodic;
  int ghost = 1;
  /// Halo options of every level's exchange (shape, buffers, local copies).
  HaloOptions halo;
  /// How far beyond its cells a prolongation reads the coarse level (<= ghost).
  int prolongation_ghost = 1;
  /// A coarse level with fewer blocks than this halves its blocks (longest axis first)
  /// while each keeps at least min_block_cells cells and no axis gets more blocks than on
  /// the level above (a coarse block covers its fine blocks): coarse levels stay spread
  /// over min_blocks ranks instead of collapsing onto one (1: blocks keep the tile size).
  int min_blocks = 1;
  int min_block_cells = 512;
};

/// Blocks and block cells of one level.
struct LevelShape {
  Int3 blocks;
  Int3 block_cells;
  Int3 cells() const {
    return {blocks.x * block_cells.x, blocks.y * block_cells.y, blocks.z * block_cells.z};
  }
};

/// The shapes of all levels of `spec`, finest first, without building anything. Throws
/// std::invalid_argument with a message naming the problem (levels < 1; a level whose cell
/// count on a non-flat axis is odd or zero, i.e. too many levels for the grid; a block size
/// that does not divide a level's cells).
std::vector<LevelShape> level_shapes(const HierarchySpec& spec);

/// The meshes, halo exchanges (one variable) and transfers of a hierarchy as seen from
/// this rank. Levels whose blocks are fewer than the ranks live on the first ranks of
/// the Morton split (UniformMesh's distribution): other ranks own no block there and only
/// take part in the transfers to and from them. Built on the main thread, collectively
/// (tags are reserved level by level); comm and exec must outlive it.
class LevelHierarchy {
 public:
  /// Throws std::invalid_argument as level_shapes does.
  LevelHierarchy(const HierarchySpec& spec, Comm& comm, Exec& exec);

  /// The bytes one of `ranks` ranks needs for this hierarchy holding `level_fields`
  /// one-variable fields on every level and `finest_fields` more on the finest, with
  /// `exchanges_per_level` one-variable halo exchanges per level (their message buffers),
  /// the transfers' pair buffers and per-block metadata; UniformMesh::memory_estimate
  /// summed over the levels. For Session::check_memory before building anything; throws
  /// as level_shapes does.
  static MemoryEstimate memory_estimate(const HierarchySpec& spec, int ranks, int level_fields,
                                        int finest_fields, int exchanges_per_level = 1);
  ~LevelHierarchy();

  const HierarchySpec& spec() const { return spec_; }
  int levels() const { return static_cast<int>(meshes_.size()); }
  const UniformMesh& mesh(int level) const { return *meshes_[level]; }
  /// The halo exchange of one-variable fields on `level`.
  HaloExchange& halo(int level) { return *halos_[level]; }
  /// Transfers between `level` (fine) and `level + 1` (coarse); level < levels() - 1.
  LevelTransfer& transfer(int level) { return *transfers_[level]; }

 private:
  HierarchySpec spec_;
  std::vector<std::unique_ptr<UniformMesh>> meshes_;
  std::vector<std::unique_ptr<HaloPlan>> plans_;
  std::vector<std::unique_ptr<HaloExchange>> halos_;
  std::vector<std::unique_ptr<LevelTransfer>> transfers_;
};

/// One one-variable field on every level of a hierarchy (zero-initialized), indexed by
/// level. Fields stay at their addresses for the object's life, as recorded tasks need.
class LevelField {
 public:
  LevelField(const LevelHierarchy& hierarchy, Runtime& runtime, const std::string& name);
  BlockField& operator[](int level) { return *fields_[level]; }
  const BlockField& operator[](int level) const { return *fields_[level]; }
  int levels() const { return static_cast<int>(fields_.size()); }

 private:
  std::vector<std::unique_ptr<BlockField>> fields_;
};

}  // namespace tessera
