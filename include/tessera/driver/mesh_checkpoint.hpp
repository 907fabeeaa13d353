#pragma once
// An adaptive mesh in a checkpoint (layer `driver`): the blocks' places, the interior cells
// of a range of variable groups as one dataset, and the mesh rebuilt from them at a
// restart. The driver uses these for its state fields; an app with its own loop can too.

#include <memory>
#include <string>

#include "tessera/amr/mesh.hpp"
#include "tessera/io/checkpoint_content.hpp"
#include "tessera/io/checkpoint_reader.hpp"

namespace tessera {

/// The local blocks' places (level, origin) and the global count and offset. Main thread.
CheckpointBlocks checkpoint_blocks(const Forest& forest);

/// The dataset `name`: per block, the interior cells of groups [first_group, first_group +
/// groups), variable by variable, each in i, j, k order (k fastest). Its pack tasks read the
/// groups' interiors; `mesh` must outlive the checkpoint's write.
CheckpointField checkpoint_cells(AmrMesh& mesh, const std::string& name, int first_group,
                                 int groups);

/// For a restart: the leaves and, when the checkpoint was written on as many ranks, the
/// partition the mesh is built from. Throws CheckpointError on a bad file.
void restart_leaves(CheckpointReader& reader, int ranks, AmrMeshOptions& mesh_options);

/// Loads dataset `name` (layout of checkpoint_cells) into the mesh's local blocks. No task
/// may be in flight on them. Throws CheckpointError on a bad file.
void read_checkpoint_cells(CheckpointReader& reader, AmrMesh& mesh, const std::string& name,
                           int first_group, int groups);

}  // namespace tessera
