#include "tessera/mesh/block_field.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/mman.h>

#include "tessera/runtime/compute_hook.hpp"
#include "tessera/runtime/out_of_memory.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera {

namespace {

// Blocks start on a cache line, so BlockLayout's line-aligned rows are aligned in memory.
constexpr std::size_t kAlignmentDoubles = BlockLayout::kRowAlignment;
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

// Zeroed storage of at least `bytes`, on a cache line. Storage of a huge page or more is
// aligned to huge pages and asks the kernel for them (transparent huge pages are often
// enabled on request only): a stencil streams through 5 or more arrays at once, and with
// 4 KB pages their TLB misses and the prefetchers stopping at every page boundary cost
// bandwidth. The memset is the first touch, so the pages are allocated here.
void* allocate_zeroed(std::size_t bytes) {
  const std::size_t alignment =
      bytes >= kHugePageBytes ? kHugePageBytes : kAlignmentDoubles * sizeof(double);
  const std::size_t size = round_up(bytes, alignment);
  void* memory = std::aligned_alloc(alignment, size);
  if (!memory) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  // Advice only: if the kernel refuses, the storage works the same on small pages.
  if (alignment == kHugePageBytes) madvise(memory, size, MADV_HUGEPAGE);
#endif
  std::memset(memory, 0, size);
  return memory;
}

}  // namespace

void BlockField::FreeDeleter::operator()(double* p) const {
  if (release) {
    release(p);
  } else {
    std::free(p);
  }
}

BlockField::BlockField(const UniformMesh& mesh, Runtime& runtime, std::string name, int nvars,
                       GhostCells ghost_cells)
    : mesh_(&mesh),
      name_(std::move(name)),
      layout_(ghost_cells == GhostCells::stored
                  ? mesh.layout(nvars)
                  : BlockLayout(mesh.block_cells(), Int3{0, 0, 0}, nvars)),
      stores_ghosts_(ghost_cells == GhostCells::stored) {
  block_stride_ = round_up(layout_.size(), kAlignmentDoubles);
  const std::size_t blocks = static_cast<std::size_t>(mesh.local_block_count());
  const std::size_t bytes = std::max<std::size_t>(1, blocks * block_stride_) * sizeof(double);
  try {
    // A simulation that skips its bodies folds the storage of every simulated rank onto the
    // same pages (docs/scaling-sim.md, "Skipped bodies"): nothing reads the values.
    const ComputeHook::FoldedStorage folded = detail::allocate_folded_storage(bytes);
    if (folded.memory) {
      storage_ = std::unique_ptr<double[], FreeDeleter>(static_cast<double*>(folded.memory),
                                                        FreeDeleter{folded.release});
    } else {
      storage_.reset(static_cast<double*>(allocate_zeroed(bytes)));
    }
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(
        fmt::format("out of memory while allocating field '{}' ({} bytes)", name_, bytes));
  }
  interior_.reserve(blocks);
  ghosts_.reserve(blocks);
  for (const MeshBlock& block : mesh.local_blocks()) {
    const std::string id = std::to_string(block.id);
    interior_.push_back(runtime.create_handle(name_ + "[" + id + "]"));
    ghosts_.push_back(runtime.create_handle(name_ + "[" + id + "].ghosts"));
  }
}

}  // namespace tessera
