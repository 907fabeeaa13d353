#include "tessera/block_field.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tessera/runtime.hpp"

namespace tessera {

namespace {

constexpr std::size_t kAlignmentDoubles = 8;  // 64 bytes: one cache line

}  // namespace

void BlockField::FreeDeleter::operator()(double* p) const {
  std::free(p);
}

BlockField::BlockField(const UniformMesh& mesh, Runtime& runtime, std::string name, int nvars)
    : mesh_(&mesh), name_(std::move(name)), layout_(mesh.layout(nvars)) {
  block_stride_ = (layout_.size() + kAlignmentDoubles - 1) / kAlignmentDoubles * kAlignmentDoubles;
  const std::size_t blocks = static_cast<std::size_t>(mesh.local_block_count());
  const std::size_t bytes = std::max<std::size_t>(1, blocks * block_stride_) * sizeof(double);
  void* memory = std::aligned_alloc(kAlignmentDoubles * sizeof(double), (bytes + 63) / 64 * 64);
  if (!memory) throw std::bad_alloc();
  std::memset(memory, 0, bytes);
  storage_.reset(static_cast<double*>(memory));
  interior_.reserve(blocks);
  ghosts_.reserve(blocks);
  for (const MeshBlock& block : mesh.local_blocks()) {
    const std::string id = std::to_string(block.id);
    interior_.push_back(runtime.create_handle(name_ + "[" + id + "]"));
    ghosts_.push_back(runtime.create_handle(name_ + "[" + id + "].ghosts"));
  }
}

}  // namespace tessera
