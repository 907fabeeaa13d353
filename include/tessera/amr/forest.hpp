#pragma once
// Forest: the distributed forest of octrees behind tessera's adaptive meshes (layer `amr`).
//
// A brick of root blocks covers the unit cube (3-D) or square (2-D); every leaf of the
// forest is one block. The forest is built on p4est (p8est's octrees in 3-D, p4est's
// quadtrees in 2-D), which stays an implementation detail: no p4est type appears here.
// A 2-D forest has one root block along z, its blocks are one layer thick (origin z 0,
// full height), split into 4 and have no z neighbours (faces 4 and 5 are boundaries). Blocks are
// ordered along p4est's space-filling curve (SFC); every rank owns a contiguous range of that order
// ("local blocks") and sees the blocks of other ranks that share a face with one of its own ("ghost
// blocks").
//
// All members are main-thread only. Members marked *collective* must be called by every
// rank of the communicator in the same order.

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace tessera {

/// Faces of a block: 0 = -x, 1 = +x, 2 = -y, 3 = +y, 4 = -z, 5 = +z (p4est's and miniAMR's
/// numbering). Face f lies on axis f / 2; the opposite face is f ^ 1.
inline constexpr int kBlockFaces = 6;
/// Length of a root block in the forest's integer coordinates; a level-L block has length
/// kRootLength >> L.
inline constexpr std::int64_t kRootLength = std::int64_t{1} << 19;
/// Finest level the forest supports.
inline constexpr int kMaxForestLevel = 18;

/// Where a block lies: its level and the integer coordinates of its lower corner. Root
/// block (i, j, k) of the brick spans [i, i+1) * kRootLength along x, and so on.
struct BlockPlace {
  int level = 0;
  std::array<std::int64_t, 3> origin{};
  std::int64_t length() const { return kRootLength >> level; }
  friend bool operator==(const BlockPlace&, const BlockPlace&) = default;
};

/// A block as one rank sees it: one of its local blocks or one of its ghost blocks.
struct BlockRef {
  bool ghost = false;
  std::int32_t index = -1;  ///< into local blocks, or into ghost blocks when `ghost`
  friend bool operator==(const BlockRef&, const BlockRef&) = default;
};

/// How a face of a block meets the rest of the forest.
enum class FaceKind : std::uint8_t {
  boundary,  ///< the face lies on the domain boundary
  same,      ///< one neighbour of the same level
  coarser,   ///< one neighbour one level coarser
  finer,     ///< four neighbours one level finer
};

/// The neighbours across one face. For `finer`, blocks[a + 2 * b] is the neighbour whose
/// offset inside the face is a along the face's first tangential axis and b along the
/// second (tangential axes in increasing order: x-faces (y, z), y-faces (x, z), z-faces
/// (x, y)); in 2-D the second is z, so b = 0 and there are two.
struct FaceNeighbors {
  FaceKind kind = FaceKind::boundary;
  std::array<BlockRef, 4> blocks{};
  std::int8_t size = 0;  ///< blocks in use: 0 (boundary), 1, or 4 (3-D) / 2 (2-D) finer
  int count() const { return size; }
};

/// Where each block after Forest::adapt came from.
struct AdaptSource {
  enum class Kind : std::uint8_t {
    kept,     ///< the same block as old local block `old_index`
    refined,  ///< child `child` (0..children - 1) of old local block `old_index`
    merged,   ///< parent of the old local blocks old_index .. old_index + children - 1
  };
  Kind kind = Kind::kept;
  std::int32_t old_index = 0;
  /// Child number: offset (child % 2, child / 2 % 2, child / 4) in half lengths.
  int child = 0;
};

/// The result of Forest::adapt: one source per new local block, in the new local order.
struct AdaptResult {
  std::vector<AdaptSource> sources;
  std::int64_t refined = 0;  ///< local blocks split into Forest::children()
  std::int64_t merged = 0;   ///< local families merged into 1
};

/// A contiguous range of blocks moving between this rank and `peer`.
struct BlockTransfer {
  int peer = 0;
  std::int32_t first = 0;  ///< first local index (old order for sends, new for receives)
  std::int32_t count = 0;
};

/// The result of Forest::partition. The SFC order does not change, so the blocks this
/// rank keeps are one contiguous range and every transfer is one contiguous range.
struct PartitionResult {
  std::vector<BlockTransfer> sends;     ///< old local ranges leaving, by increasing peer
  std::vector<BlockTransfer> receives;  ///< new local ranges arriving, by increasing peer
  std::int32_t kept_old_first = 0;      ///< old local index of the first kept block
  std::int32_t kept_new_first = 0;      ///< its new local index
  std::int32_t kept_count = 0;
  std::int64_t global_moved = 0;  ///< blocks that changed rank, over all ranks
};

/// The distributed forest. Not copyable.
class ForestBackend;

/// What a Forest knows after every change of the mesh (filled by its p4est backend).
struct ForestTables {
  std::vector<std::int64_t> global_offsets;
  std::vector<BlockPlace> local;
  std::vector<BlockPlace> ghost;
  std::vector<int> ghost_owner;
  std::vector<std::int64_t> ghost_global;
  std::vector<FaceNeighbors> neighbors;  ///< kBlockFaces per local block
  std::vector<std::int32_t> family_first;
};

class Forest {
 public:
  /// Collective. Creates the brick of root_blocks[0] x root_blocks[1] x root_blocks[2]
  /// level-0 blocks (each >= 1) over a duplicate of `comm`, split evenly along the SFC.
  /// Along a `periodic` axis the brick wraps around: its two end faces are neighbours
  /// (FaceKind::same or a level jump), not boundaries; one root block is then its own
  /// neighbour. `dim` 2 builds a quadtree forest (root_blocks[2] must be 1, periodic[2] is
  /// ignored), 3 an octree forest. Initializes p4est on first use (log level: errors only).
  Forest(MPI_Comm comm, std::array<int, 3> root_blocks, std::array<bool, 3> periodic = {},
         int dim = 3);
  /// Collective. Creates the brick and refines it until its leaves are exactly `leaves`
  /// (every block of the forest in SFC order, the same list on every rank, as a checkpoint
  /// stores them). Rank r then owns global indices [offsets[r], offsets[r + 1]) when
  /// `offsets` has size() + 1 entries, else the equal split partition() makes. Throws
  /// std::invalid_argument when the leaves do not tile the brick.
  Forest(MPI_Comm comm, std::array<int, 3> root_blocks, std::span<const BlockPlace> leaves,
         std::span<const std::int64_t> offsets, std::array<bool, 3> periodic = {}, int dim = 3);
  ~Forest();
  Forest(const Forest&) = delete;
  Forest& operator=(const Forest&) = delete;

  int rank() const;
  int size() const;
  /// The forest's own duplicate of the communicator it was created with.
  MPI_Comm communicator() const;
  std::array<int, 3> root_blocks() const { return root_blocks_; }
  std::array<bool, 3> periodic() const { return periodic_; }
  /// 2 (quadtrees) or 3 (octrees).
  int dim() const { return dim_; }
  /// Blocks a split makes and a merge takes: 4 in 2-D, 8 in 3-D.
  int children() const { return 1 << dim_; }

  std::int32_t local_count() const { return static_cast<std::int32_t>(t_.local.size()); }
  std::int32_t ghost_count() const { return static_cast<std::int32_t>(t_.ghost.size()); }
  std::int64_t global_count() const { return t_.global_offsets.back(); }
  /// SFC index of local block 0; local block i has global index global_offset() + i.
  std::int64_t global_offset() const { return t_.global_offsets[rank()]; }
  /// size() + 1 entries: rank r owns global indices [offsets[r], offsets[r + 1]).
  std::span<const std::int64_t> global_offsets() const { return t_.global_offsets; }

  const BlockPlace& local(std::int32_t i) const { return t_.local[i]; }
  const BlockPlace& ghost(std::int32_t g) const { return t_.ghost[g]; }
  const BlockPlace& place(BlockRef ref) const {
    return ref.ghost ? t_.ghost[ref.index] : t_.local[ref.index];
  }
  /// Rank owning ghost block g.
  int ghost_owner(std::int32_t g) const { return t_.ghost_owner[g]; }
  /// Global SFC index of a local or ghost block.
  std::int64_t global_index(BlockRef ref) const;
  /// The neighbours of local block i across `face`.
  const FaceNeighbors& neighbors(std::int32_t i, int face) const {
    return t_.neighbors[static_cast<std::size_t>(i) * kBlockFaces + face];
  }
  /// First local index of the family of children() sibling leaves containing local block
  /// i, or -1 when i is a root block, some sibling is not a leaf, or some sibling lives on
  /// another rank (which partition() never does and gather_families() undoes).
  std::int32_t family_first(std::int32_t i) const { return t_.family_first[i]; }

  /// Lower and upper corner of a block in the unit cube, [axis][0 = low, 1 = high]. The
  /// values are exact dyadic fractions of the cube; in 2-D every block spans z in [0, 1].
  std::array<std::array<double, 2>, 3> unit_box(const BlockPlace& place) const;

  /// Collective. Number of blocks on each level 0..max_level over all ranks.
  std::vector<std::int64_t> global_level_counts(int max_level) const;

  /// Collective. Copies `bytes_per_block` bytes per local block from `local` (indexed by
  /// local index) to every rank that has the block as a ghost, into `ghost` (indexed by
  /// ghost index; ghost_count() * bytes_per_block bytes).
  void exchange_ghost_bytes(const void* local, void* ghost, std::size_t bytes_per_block) const;
  /// Typed form of exchange_ghost_bytes; returns one value per ghost block.
  template <class T>
  std::vector<T> exchange_ghost_values(std::span<const T> local) const {
    std::vector<T> ghosts(t_.ghost.size());
    exchange_ghost_bytes(local.data(), ghosts.data(), sizeof(T));
    return ghosts;
  }

  /// Collective. Changes the forest by one level at most per block: marks[i] = +1 splits
  /// local block i into children() children, -1 merges a family of children() local
  /// sibling leaves that are all marked -1 (a -1 on any other block is ignored), 0 keeps it. No
  /// further refinement is made: the caller's marks must keep 2:1 face balance (is_face_balanced
  /// checks it). Rebuilds the ghost layer and the neighbour tables.
  AdaptResult adapt(std::span<const std::int8_t> marks);

  /// Collective. Repartitions along the SFC so that every rank holds about the same total
  /// weight (weights[i] >= 1 per local block; empty span = all 1), never splitting a
  /// family of sibling leaves. Returns which ranges move; block data must be moved by
  /// the caller. Rebuilds the ghost layer and the neighbour tables.
  PartitionResult partition(std::span<const std::int64_t> weights = {});

  /// Collective. Repartitions along the SFC so that rank r holds the next counts[r] blocks
  /// (size() entries summing to global_count(), e.g. from weighted_split); families of
  /// sibling leaves may then be split between ranks (gather_families() undoes that).
  /// Returns which ranges move; block data must be moved by the caller. Throws
  /// std::invalid_argument on counts of the wrong size or sum.
  PartitionResult partition_given(std::span<const std::int64_t> counts);

  /// Collective. Moves the few blocks needed so that no family of sibling leaves is split
  /// between ranks (a merge can complete a family whose siblings live on another rank);
  /// the partition is otherwise kept. Returns which ranges move (usually none).
  PartitionResult gather_families();

  /// Collective. True if no two face neighbours differ by more than one level.
  bool is_face_balanced() const;

 private:
  PartitionResult transfers_since(const std::vector<std::int64_t>& old_offsets,
                                  std::int64_t shipped) const;

  std::array<int, 3> root_blocks_{};
  std::array<bool, 3> periodic_{};
  int dim_ = 3;
  std::unique_ptr<ForestBackend> backend_;
  ForestTables t_;
};

}  // namespace tessera
