#pragma once
// Checkpoint descriptions for the uniform block mesh (layer `io`): the blocks of a
// UniformMesh and BlockFields stored whole per block (interior, ghost layer and padding,
// every variable, in BlockLayout order), for apps whose state is a few BlockFields
// (mg, poisson). Storing the ghost layer too restores the block exactly as it was, so a
// restart needs no reasoning about which ghosts were current.

#include <string>

#include "tessera/io/checkpoint_content.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera {

/// This rank's blocks of `mesh` in Morton curve order (level 0, the block's grid
/// coordinates). Throws std::logic_error if the local blocks are not one contiguous range
/// of the curve (every UniformMesh partition is).
CheckpointBlocks checkpoint_blocks(const UniformMesh& mesh);

/// Field `name` holding every block of `field` whole (BlockLayout::size() values); its pack
/// tasks read the block's interior and ghost handles. `field` must outlive the write.
CheckpointField whole_block_field(std::string name, const BlockField& field);

/// Collective. Reads field `name` (written by whole_block_field for a mesh of the same
/// blocks and layout) into this rank's blocks of `field`. Main thread, with no task in
/// flight on `field`. Throws CheckpointError as CheckpointReader::read_field does.
void read_whole_blocks(CheckpointReader& reader, const std::string& name, BlockField& field);

}  // namespace tessera
