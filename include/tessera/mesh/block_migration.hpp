#pragma once
// Moving a uniform mesh's blocks to the ranks of a new partition of the same curve (a cost
// balance), as tasks, as miniAMR moves blocks: per peer one pack task, a send, a receive
// and one unpack task; blocks that stay on the rank are copied by a task each.

#include <cstdint>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/mesh/block_field.hpp"

namespace tessera {

/// The tasks moving one field's block interiors from one partition to another. Construct
/// on the main thread of every rank with the same old and new partitions; the object owns
/// the message buffers and must live until the tasks completed (a wait on the runtime).
class BlockMigration {
 public:
  /// Submits the tasks copying `from`'s interiors (a field on the old mesh) into `to` (a
  /// field of the same layout on a mesh of the same grid partitioned otherwise). Ghost
  /// cells of `to` are not written. Messages use tags.tag(0): the channel to each peer
  /// orders consecutive migrations. Throws std::invalid_argument when the meshes' grids,
  /// ranks or the fields' layouts differ.
  BlockMigration(Comm& comm, const BlockField& from, BlockField& to, const TagSpace& tags);
  BlockMigration(const BlockMigration&) = delete;
  BlockMigration& operator=(const BlockMigration&) = delete;
  /// Blocks this rank sends to other ranks.
  std::int64_t blocks_sent() const { return sent_; }

 private:
  std::vector<std::vector<double>> buffers_;
  std::int64_t sent_ = 0;
};

}  // namespace tessera
