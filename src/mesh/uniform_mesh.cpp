#include "tessera/mesh/uniform_mesh.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "tessera/mesh/morton.hpp"

namespace tessera {

namespace {

std::string int3_text(Int3 v) {
  return std::to_string(v.x) + " " + std::to_string(v.y) + " " + std::to_string(v.z);
}

}  // namespace

UniformMesh::UniformMesh(Int3 blocks, Int3 block_cells, int ghost, int rank, int ranks,
                         Periodicity periodic)
    : blocks_(blocks), block_cells_(block_cells), rank_(rank), ranks_(ranks) {
  periodic_ = {periodic.x && !is_flat(0), periodic.y && !is_flat(1), periodic.z && !is_flat(2)};
  for (int a = 0; a < 3; ++a) {
    if (blocks[a] < 1 || blocks[a] > static_cast<int>(kMortonMaxCoordinate) + 1) {
      throw std::invalid_argument("blocks must be in [1, 2^21] per axis, got " + int3_text(blocks));
    }
    if (block_cells[a] < 1) {
      throw std::invalid_argument("block cells must be >= 1 per axis, got " +
                                  int3_text(block_cells));
    }
  }
  if (ghost < 1)
    throw std::invalid_argument("ghost width must be >= 1, got " + std::to_string(ghost));
  for (int a = 0; a < 3; ++a) {
    ghost_[a] = is_flat(a) ? 0 : ghost;
    if (ghost_[a] > block_cells[a]) {
      throw std::invalid_argument("ghost width " + std::to_string(ghost) +
                                  " exceeds the block cells " + int3_text(block_cells));
    }
  }
  if (ranks < 1 || rank < 0 || rank >= ranks) {
    throw std::invalid_argument("rank " + std::to_string(rank) + " outside [0, " +
                                std::to_string(ranks) + ")");
  }

  // Order all blocks along the Morton curve of their coordinates.
  const std::int64_t n = global_block_count();
  std::vector<std::pair<std::uint64_t, GlobalBlockId>> curve(static_cast<std::size_t>(n));
  for (GlobalBlockId id = 0; id < n; ++id) {
    const Int3 c = block_coord(id);
    curve[id] = {morton_encode(c.x, c.y, c.z), id};
  }
  std::sort(curve.begin(), curve.end());
  curve_index_.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) curve_index_[curve[i].second] = i;

  first_local_curve_index_ = balanced_range_begin(n, ranks, rank);
  const std::int64_t end = balanced_range_begin(n, ranks, rank + 1);
  local_.reserve(static_cast<std::size_t>(end - first_local_curve_index_));
  for (std::int64_t i = first_local_curve_index_; i < end; ++i) {
    MeshBlock block;
    block.id = curve[i].second;
    block.coord = block_coord(block.id);
    block.curve_index = i;
    local_.push_back(block);
  }
  for (MeshBlock& block : local_) {
    for (int index = 0; index < Direction::kCount; ++index) {
      const Direction d = Direction::from_index(index);
      const GlobalBlockId nb = neighbour(block.coord, d);
      block.neighbour[index] = nb;
      block.neighbour_rank[index] = nb == kNoBlock ? -1 : owner(nb);
      block.neighbour_local[index] =
          nb == kNoBlock ? kNotLocal : local_index(nb).value_or(kNotLocal);
      const bool remote = nb != kNoBlock && block.neighbour_rank[index] != rank_;
      if (remote) {
        block.skeleton_full = true;
        if (d.order() == 1) block.skeleton_faces = true;
      }
    }
  }
}

int UniformMesh::dimensions() const {
  return 3 - is_flat(2) - (is_flat(2) && is_flat(1));
}

Int3 UniformMesh::block_coord(GlobalBlockId id) const {
  const std::int64_t plane = std::int64_t{blocks_.x} * blocks_.y;
  return {static_cast<int>(id % blocks_.x), static_cast<int>((id % plane) / blocks_.x),
          static_cast<int>(id / plane)};
}

int UniformMesh::owner(GlobalBlockId id) const {
  return balanced_range_owner(global_block_count(), ranks_, curve_index_[id]);
}

GlobalBlockId UniformMesh::neighbour(Int3 coord, Direction d) const {
  if (d.index() == 13) return block_id(coord);
  Int3 c;
  for (int a = 0; a < 3; ++a) {
    c[a] = coord[a] + d.offset[a];
    if (c[a] < 0 || c[a] >= blocks_[a]) {
      if (!periodic_[a]) return kNoBlock;
      c[a] = (c[a] + blocks_[a]) % blocks_[a];
    }
  }
  return block_id(c);
}

std::optional<LocalBlockIndex> UniformMesh::local_index(GlobalBlockId id) const {
  if (id < 0 || id >= global_block_count()) return std::nullopt;
  const std::int64_t i = curve_index_[id] - first_local_curve_index_;
  if (i < 0 || i >= local_block_count()) return std::nullopt;
  return static_cast<LocalBlockIndex>(i);
}

}  // namespace tessera
