#include "tessera/io/block_field_checkpoint.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace tessera {

CheckpointBlocks checkpoint_blocks(const UniformMesh& mesh) {
  CheckpointBlocks blocks;
  blocks.global_count = mesh.global_block_count();
  blocks.first = mesh.local_block_count() > 0 ? mesh.local_block(0).curve_index : 0;
  for (const MeshBlock& b : mesh.local_blocks()) {
    if (b.curve_index != blocks.first + blocks.local_count())
      throw std::logic_error("checkpoint_blocks: the local blocks are not one range of the curve");
    blocks.places.push_back({0, b.coord.x, b.coord.y, b.coord.z});
  }
  return blocks;
}

CheckpointField whole_block_field(std::string name, const BlockField& field) {
  CheckpointField f;
  f.name = std::move(name);
  f.values_per_block = field.layout().size();
  const BlockField* source = &field;
  f.reads = [source](std::int32_t b, std::vector<Handle>& out) {
    out.push_back(source->interior(b));
    out.push_back(source->ghosts(b));
  };
  f.pack = [source](std::int32_t b, double* out) {
    const double* block = source->data(b);
    std::copy(block, block + source->layout().size(), out);
  };
  return f;
}

void read_whole_blocks(CheckpointReader& reader, const std::string& name, BlockField& field) {
  const UniformMesh& mesh = field.mesh();
  const std::size_t size = field.layout().size();
  reader.read_field(name, mesh.local_block_count() > 0 ? mesh.local_block(0).curve_index : 0,
                    mesh.local_block_count(), size, [&](std::int64_t b, const double* values) {
                      std::copy(values, values + size, field.data(static_cast<LocalBlockIndex>(b)));
                    });
}

}  // namespace tessera
