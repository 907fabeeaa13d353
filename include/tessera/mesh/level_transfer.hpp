#pragma once
// Restriction and prolongation between two levels of a multigrid hierarchy, as tasks on
// pairs of blocks (a fine block and the coarse block covering it), wherever the two live.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/grid_view.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera {

/// Computes the coarse cells [0, coarse_cells) of `coarse` from `fine`. `fine` has its origin
/// at the fine block's cell (0, 0, 0) and its filled ghost layer around it; `coarse` has its
/// origin at the coarse cell under fine cell (0, 0, 0) (fine index / 2 on coarsened axes).
/// Every coarse cell in range must be written. Called from tasks, concurrently for
/// different pairs: it must not modify shared state.
using RestrictionKernel =
    std::function<void(ConstGridView fine, GridView coarse, Int3 coarse_cells)>;
/// Updates the fine cells [0, fine_cells) of `fine` from `coarse`, whose origin is the
/// coarse cell under fine cell (0, 0, 0) and which is readable `coarse_ghost` cells beyond
/// the covered coarse cells on every non-flat axis (LevelTransfer's constructor argument).
/// Same calling rules as RestrictionKernel.
using ProlongationKernel =
    std::function<void(ConstGridView coarse, GridView fine, Int3 fine_cells)>;

/// A fine block and the coarse block covering it, as LevelTransfer pairs them.
struct LevelPair {
  GlobalBlockId fine_id = kNoBlock;
  GlobalBlockId coarse_id = kNoBlock;
  int fine_rank = -1;
  int coarse_rank = -1;
  /// The fine block's position under its coarse block: bit a set for the upper half on
  /// axis a (always 0 on an axis where both levels have the same block count).
  int child = 0;
};

/// The pairs of `fine` and `coarse` (related as LevelTransfer requires: std::invalid_argument
/// otherwise) with a block on this rank, in fine block id order: this rank's fine blocks
/// with their parents, and its coarse blocks' children. Computed from coordinates in
/// O(pairs x log(blocks)) time and memory, independent of the global block count.
std::vector<LevelPair> local_level_pairs(const UniformMesh& fine, const UniformMesh& coarse);

/// The block pairs between a fine level and the next coarser one, and the tasks and
/// messages that move data between them. Per non-flat axis the coarse level has half the
/// cells and either the same number of blocks or half as many, so each fine block lies
/// under exactly one coarse block; the two may belong to different ranks (coarse levels
/// with fewer blocks than ranks live on fewer ranks), and then the pair's data travels in
/// one message per pair. Operator-agnostic: the app supplies the kernels. Holds only the
/// pairs touching this rank (local_level_pairs), so its size does not grow with the
/// global block count.
class LevelTransfer {
 public:
  /// `fine` and `coarse` as described above (std::invalid_argument otherwise); they, comm
  /// and exec must outlive this object. `coarse_ghost` (<= the coarse mesh's ghost width)
  /// is how far beyond a fine block's coarse cells a prolongation reads. Reserves tags on
  /// `comm` (collective in order, as HaloExchange). Main thread only.
  LevelTransfer(const UniformMesh& fine, const UniformMesh& coarse, int coarse_ghost, Comm& comm,
                Exec& exec, const std::string& name = "transfer");
  ~LevelTransfer();
  LevelTransfer(const LevelTransfer&) = delete;
  LevelTransfer& operator=(const LevelTransfer&) = delete;

  /// Submits, per pair, `kernel` from the fine block to the coarse block's cells under it
  /// (on the fine block's rank, sent to the coarse block's rank if that differs). Reads the
  /// fine blocks' interiors and ghosts (exchange the fine halo first); writes every coarse
  /// interior cell, not the coarse ghosts. Both fields have one variable and live on the
  /// transfer's meshes (std::invalid_argument otherwise). Main thread only; the fields must not
  /// move while the tasks (or replays of a recorded graph holding them) may run.
  void restrict_field(const BlockField& fine, BlockField& coarse, RestrictionKernel kernel);
  /// Submits, per pair, `kernel` from the coarse block (interior and ghosts: exchange the
  /// coarse halo first) into the fine block's interior (readwrite; fine ghosts untouched).
  /// With `fine_ghosts` the tasks also take the fine ghost layer (readwrite) and the kernel
  /// may update it too, for operators that can compute a ghost's new value locally (the
  /// value the neighbour computes for that cell), sparing a halo exchange. `after_block`,
  /// if given, is called on the main thread right after the task of each local fine block
  /// is submitted, with that block's index: work the caller submits there on the same
  /// block follows it directly in submission order, so in-order execution finds the block
  /// in cache. Same rules as restrict_field.
  void prolong_field(const BlockField& coarse, BlockField& fine, ProlongationKernel kernel,
                     bool fine_ghosts = false,
                     const std::function<void(LocalBlockIndex)>& after_block = {});

  /// Pairs with a block on this rank, and of those the ones whose other block is remote.
  int local_pairs() const;
  int remote_pairs() const;

 private:
  struct Pair;
  const UniformMesh& fine_;
  const UniformMesh& coarse_;
  Int3 coarse_ghost_;
  Comm& comm_;
  Exec& exec_;
  TagSpace tags_;
  std::vector<Pair> pairs_;
  std::vector<Access> accesses_;
};

}  // namespace tessera
