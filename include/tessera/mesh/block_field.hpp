#pragma once
// A field: nvars variables on every local block of a mesh, with the handles through which
// tasks declare what they touch.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tessera/mesh/block_layout.hpp"
#include "tessera/mesh/block_view.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/runtime/handle.hpp"

namespace tessera {

class Runtime;

/// Whether a field keeps ghost cells around its blocks' interiors.
enum class GhostCells {
  /// The mesh's ghost layer (UniformMesh::ghost()): halo exchanges fill it.
  stored,
  /// Interiors only, rows packed end to end. For kernels that read every face elsewhere
  /// (a neighbour's interior in place, a received halo section, boundary values), so a
  /// sweep streams no ghost or padding line: on 32^3 blocks the ghost layer and its row
  /// padding are 41 % more lines than the interior. Its exchanges fuse every unpack and
  /// copy no local ghosts (HaloExchange refuses the field otherwise).
  none,
};

/// Storage for one field on this rank's blocks, zero-initialized (folded and meaningless in a
/// simulation whose bodies are skipped, tessera::compute_bodies_skipped()), each block a contiguous
/// 64-byte aligned array in BlockLayout order. Every block has two handles: `interior`
/// (its cells) and `ghosts` (its ghost layer). They cover disjoint memory, so halo tasks
/// that read a block's interior never wait for tasks filling its ghosts; a task reading
/// both (a stencil) lists both. Create and use on the main thread; the data pointers may be
/// used from tasks that declare the matching accesses.
class BlockField {
 public:
  BlockField(const UniformMesh& mesh, Runtime& runtime, std::string name, int nvars,
             GhostCells ghost_cells = GhostCells::stored);

  const std::string& name() const { return name_; }
  int nvars() const { return layout_.nvars(); }
  /// The blocks' layout: the mesh's ghost widths, or none with GhostCells::none.
  const BlockLayout& layout() const { return layout_; }
  bool stores_ghosts() const { return stores_ghosts_; }
  const UniformMesh& mesh() const { return *mesh_; }
  int block_count() const { return static_cast<int>(interior_.size()); }
  /// The mesh's local blocks: block_count() (the name AmrMesh uses too).
  int local_block_count() const { return block_count(); }

  double* data(LocalBlockIndex b) { return storage_.get() + block_stride_ * b; }
  const double* data(LocalBlockIndex b) const { return storage_.get() + block_stride_ * b; }
  /// Block b for a kernel (as AmrMesh::view).
  BlockView view(LocalBlockIndex b) { return {&layout_, data(b)}; }
  Handle interior(LocalBlockIndex b) const { return interior_[b]; }
  Handle ghosts(LocalBlockIndex b) const { return ghosts_[b]; }
  /// ghosts(b) as a list (as AmrMesh::ghost_handles, which has one per axis).
  std::span<const Handle> ghost_handles(LocalBlockIndex b) const {
    return std::span<const Handle>(&ghosts_[static_cast<std::size_t>(b)], 1);
  }

 private:
  // std::free, or the release of folded storage (a simulation that skips its bodies).
  struct FreeDeleter {
    FreeDeleter() noexcept : release(nullptr) {}
    explicit FreeDeleter(void (*r)(void*)) noexcept : release(r) {}
    void (*release)(void*);
    void operator()(double* p) const;
  };
  const UniformMesh* mesh_;
  std::string name_;
  BlockLayout layout_;
  bool stores_ghosts_;
  std::size_t block_stride_;
  std::unique_ptr<double[], FreeDeleter> storage_;
  std::vector<Handle> interior_;
  std::vector<Handle> ghosts_;
};

}  // namespace tessera
