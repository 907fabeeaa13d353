#pragma once
// A uniform block mesh: the unit cube (or square, when the z axis is flat) cut into a
// grid of equal blocks, distributed over ranks along a Morton curve. A rank stores only its
// own blocks: every other block's curve position and owner is computed from its
// coordinates (MortonGrid), so memory and set-up time do not grow with the global mesh.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tessera/mesh/block_index.hpp"
#include "tessera/mesh/block_layout.hpp"
#include "tessera/mesh/box.hpp"
#include "tessera/mesh/direction.hpp"
#include "tessera/mesh/morton.hpp"
#include "tessera/runtime/memory_estimate.hpp"

namespace tessera {

/// A block's id in the whole mesh: x + BX (y + BY z) for block coordinates (x, y, z).
using GlobalBlockId = std::int64_t;

/// Marks a missing neighbour (outside the domain).
inline constexpr GlobalBlockId kNoBlock = -1;

/// Which axes wrap around: on a periodic axis the block past the last one is the first one
/// (and a single block is its own neighbour), so every block has all its neighbours there.
/// Flat axes never wrap.
struct Periodicity {
  bool x = false;
  bool y = false;
  bool z = false;
  constexpr bool operator[](int axis) const { return axis == 0 ? x : (axis == 1 ? y : z); }
  /// Every axis periodic (NAS MG's torus).
  static constexpr Periodicity all() { return {true, true, true}; }
  friend bool operator==(const Periodicity&, const Periodicity&) = default;
};

/// One block of this rank with its 26 neighbours, indexed by Direction::index().
struct MeshBlock {
  GlobalBlockId id = kNoBlock;
  Int3 coord;
  /// Position along the Morton curve over all blocks.
  std::int64_t curve_index = 0;
  /// Neighbour ids (kNoBlock outside the domain); entry 13 is the block itself. On a
  /// periodic axis with one or two blocks, several entries (or the block itself) repeat.
  std::array<GlobalBlockId, Direction::kCount> neighbour{};
  /// Rank owning each neighbour (-1 outside the domain).
  std::array<int, Direction::kCount> neighbour_rank{};
  /// Local index of each neighbour on this rank (kNotLocal if remote or outside).
  std::array<LocalBlockIndex, Direction::kCount> neighbour_local{};
  /// A neighbour reached through a face / through any face, edge or corner is remote.
  bool skeleton_faces = false;
  bool skeleton_full = false;

  /// Skeleton for a halo of `shape`: some neighbour it exchanges with is on another rank.
  bool is_skeleton(HaloShape shape) const {
    return shape == HaloShape::faces ? skeleton_faces : skeleton_full;
  }
};

/// The block grid of one run, as seen by one rank. Immutable after construction; every
/// rank builds the same geometry from the same arguments, so no communication is needed.
class UniformMesh {
 public:
  /// `blocks` blocks per axis, each of `block_cells` cells, with `ghost` ghost cells per
  /// side, seen from `rank` of `ranks`. An axis with one block of one cell is *flat*
  /// (2-D meshes have a flat z axis): it gets no ghost cells and no neighbours. Throws
  /// std::invalid_argument naming the argument when blocks or cells < 1, ghost < 1,
  /// ghost > block_cells on a non-flat axis, more than 2^21 blocks on an axis, 2^63 blocks
  /// or more in all, or rank outside [0, ranks). Ranks may own no block when ranks exceed
  /// the block count. Time and memory O(local blocks x 26 x log(blocks)), independent of
  /// the global block count. `periodic` axes wrap around (see Periodicity); the default
  /// has none.
  UniformMesh(Int3 blocks, Int3 block_cells, int ghost, int rank, int ranks,
              Periodicity periodic = {});
  /// The same mesh with rank r owning the next `counts[r]` blocks of the curve (a cost
  /// balance, weighted_split) instead of a count-balanced range. Throws
  /// std::invalid_argument when counts has not `ranks` entries, one is negative, or they do
  /// not sum to the global block count. O(ranks) memory besides the local blocks.
  UniformMesh(Int3 blocks, Int3 block_cells, int ghost, int rank, int ranks, Periodicity periodic,
              std::span<const std::int64_t> counts);

  /// The bytes one of `ranks` ranks needs for a mesh of these arguments (validated or not)
  /// holding `field_variables` doubles per cell over all its fields, exchanging halos of
  /// `halo_variables`: "fields", "ghosts", "message buffers" (a rank's Morton range taken
  /// as 12 L^(2/3) remote faces for L local blocks, at most 6 L) and "metadata". Computed
  /// in doubles without building anything, for Session::check_memory before the mesh.
  static MemoryEstimate memory_estimate(Int3 blocks, Int3 block_cells, int ghost, int ranks,
                                        int field_variables, int halo_variables);

  Int3 blocks() const { return blocks_; }
  Int3 block_cells() const { return block_cells_; }
  /// Ghost width per axis (0 on flat axes).
  Int3 ghost() const { return ghost_; }
  /// Cells per axis in the whole mesh.
  Int3 cells() const {
    return {blocks_.x * block_cells_.x, blocks_.y * block_cells_.y, blocks_.z * block_cells_.z};
  }
  /// 3, or 2 when the z axis is flat (1 when y is flat too).
  int dimensions() const;
  bool is_flat(int axis) const { return blocks_[axis] == 1 && block_cells_[axis] == 1; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  /// Whether `axis` wraps around (never for a flat axis).
  bool is_periodic(int axis) const { return periodic_[axis] && !is_flat(axis); }
  Periodicity periodicity() const { return periodic_; }

  std::int64_t global_block_count() const { return product(blocks_); }
  GlobalBlockId block_id(Int3 coord) const {
    return coord.x + std::int64_t{blocks_.x} * (coord.y + std::int64_t{blocks_.y} * coord.z);
  }
  Int3 block_coord(GlobalBlockId id) const;
  /// Position of a block along the Morton curve through all blocks; O(log blocks).
  std::int64_t curve_index(GlobalBlockId id) const { return curve_.position(block_coord(id)); }
  /// The rank owning a block: ranks own contiguous ranges of the curve, count-balanced
  /// unless the mesh was built from counts; O(log blocks + log ranks).
  int owner(GlobalBlockId id) const;
  /// The rank owning curve position `position` (0 <= position < global_block_count()).
  int owner_of_position(std::int64_t position) const;
  /// The first curve position of rank r's range (r = ranks() gives the block count).
  std::int64_t range_begin(int r) const;
  /// Blocks per rank, as the counts constructor takes them.
  std::vector<std::int64_t> counts() const;
  /// The neighbour of block `coord` in direction d (wrapped on periodic axes), or kNoBlock
  /// outside the domain.
  GlobalBlockId neighbour(Int3 coord, Direction d) const;

  /// This rank's blocks in curve order.
  const std::vector<MeshBlock>& local_blocks() const { return local_; }
  int local_block_count() const { return static_cast<int>(local_.size()); }
  const MeshBlock& local_block(LocalBlockIndex b) const { return local_[b]; }
  /// The local index of a block of this rank, std::nullopt for other ranks' blocks;
  /// O(log blocks).
  std::optional<LocalBlockIndex> local_index(GlobalBlockId id) const;
  /// Global index of the block's cell (0, 0, 0).
  Int3 cell_origin(const MeshBlock& block) const {
    return {block.coord.x * block_cells_.x, block.coord.y * block_cells_.y,
            block.coord.z * block_cells_.z};
  }
  /// The same for local block b (as AmrMesh::cell_origin, on level 0).
  Int3 cell_origin(LocalBlockIndex b) const { return cell_origin(local_[b]); }
  /// Refinement level of local block b: always 0 (as AmrMesh::level).
  int level(LocalBlockIndex) const { return 0; }
  /// True if local block b exchanges a halo of `shape` with another rank (as
  /// AmrMesh::is_skeleton).
  bool is_skeleton(LocalBlockIndex b, HaloShape shape = HaloShape::faces) const {
    return local_[b].is_skeleton(shape);
  }
  /// The layout of a field of `nvars` variables on this mesh's blocks.
  BlockLayout layout(int nvars) const { return BlockLayout(block_cells_, ghost_, nvars); }

 private:
  Int3 blocks_;
  Int3 block_cells_;
  Int3 ghost_;
  int rank_;
  int ranks_;
  Periodicity periodic_;
  MortonGrid curve_;
  // ranks + 1 curve positions when built from counts; empty for the count-balanced split.
  std::vector<std::int64_t> range_begins_;
  std::vector<MeshBlock> local_;
  std::int64_t first_local_curve_index_ = 0;
};

}  // namespace tessera
