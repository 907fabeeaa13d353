#pragma once
// The p4est side of a Forest: one implementation per dimension, compiled from one source
// (forest_backend_p4est.inc) against p4est's 2-D API and, through p4est_to_p8est.h,
// against its 3-D API. Forest keeps the dimension-free bookkeeping; a backend owns the
// p4est objects and answers in tessera's terms (BlockPlace, FaceNeighbors, AdaptSource).
// Main thread only, like Forest; members marked collective are called by every rank.

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "tessera/amr/forest.hpp"

namespace tessera {

class ForestBackend {
 public:
  virtual ~ForestBackend() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual MPI_Comm communicator() const = 0;

  /// Collective. Refines, recursively, every leaf that is not `is_leaf` but `is_ancestor`
  /// (of some wanted leaf); returns true when every local leaf afterwards satisfies
  /// `is_leaf` and the global count is `expected` (this rank's view; the caller reduces).
  virtual bool refine_to(const std::function<bool(const BlockPlace&)>& is_leaf,
                         const std::function<bool(const BlockPlace&)>& is_ancestor,
                         std::int64_t expected) = 0;
  /// Collective. Marks as Forest::adapt; fills the sources in the new local order.
  virtual AdaptResult adapt(std::span<const std::int8_t> marks) = 0;
  /// Collective. Weighted partition along the curve (weights by old local index, empty: 1)
  /// keeping families together; returns the global number of blocks that moved.
  virtual std::int64_t partition(std::span<const std::int64_t> weights) = 0;
  /// Collective. Partition with `counts[r]` blocks on rank r; returns blocks moved.
  virtual std::int64_t partition_given(std::span<const std::int64_t> counts) = 0;
  /// Collective. Adjusts `counts` (blocks per rank) so that no family is split; returns
  /// false when nothing needs to move.
  virtual bool counts_for_coarsening(std::span<std::int64_t> counts) = 0;
  /// Collective.
  virtual bool is_face_balanced() const = 0;
  /// Collective. As Forest::exchange_ghost_bytes.
  virtual void exchange_ghost_bytes(const void* local, void* ghost,
                                    std::size_t bytes_per_block) const = 0;
  /// Collective. Rebuilds the ghost layer and fills `tables` for the current forest.
  virtual void describe(ForestTables& tables) = 0;
};

/// Initializes libsc and p4est once per process (log level: errors only).
void init_p4est_once();

/// Collective. A backend over a brick of root blocks (root_blocks[2] == 1 in 2-D).
std::unique_ptr<ForestBackend> make_forest_backend_2d(MPI_Comm comm, std::array<int, 3> root_blocks,
                                                      std::array<bool, 3> periodic);
std::unique_ptr<ForestBackend> make_forest_backend_3d(MPI_Comm comm, std::array<int, 3> root_blocks,
                                                      std::array<bool, 3> periodic);

}  // namespace tessera
