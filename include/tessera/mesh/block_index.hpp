#pragma once
// The index of a block among its rank's local blocks, shared by the uniform and the
// adaptive mesh (UniformMesh, BlockField, AmrMesh).

namespace tessera {

/// A block's position in its rank's list of local blocks: 0 .. local_block_count() - 1,
/// in space-filling-curve order on both meshes. On an AmrMesh it is valid until the mesh
/// changes (adapt, rebalance, gather_families).
using LocalBlockIndex = int;

/// Marks a neighbour that is not a local block (remote, or outside the domain).
inline constexpr LocalBlockIndex kNotLocal = -1;

}  // namespace tessera
