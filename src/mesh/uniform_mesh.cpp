#include "tessera/mesh/uniform_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tessera {

namespace {

std::string int3_text(Int3 v) {
  return std::to_string(v.x) + " " + std::to_string(v.y) + " " + std::to_string(v.z);
}

}  // namespace

UniformMesh::UniformMesh(Int3 blocks, Int3 block_cells, int ghost, int rank, int ranks,
                         Periodicity periodic)
    : UniformMesh(blocks, block_cells, ghost, rank, ranks, periodic, {}) {}

UniformMesh::UniformMesh(Int3 blocks, Int3 block_cells, int ghost, int rank, int ranks,
                         Periodicity periodic, std::span<const std::int64_t> counts)
    : blocks_(blocks), block_cells_(block_cells), rank_(rank), ranks_(ranks), curve_({1, 1, 1}) {
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
  if (static_cast<double>(blocks.x) * blocks.y * blocks.z >= 0x1p63) {
    throw std::invalid_argument("blocks must number fewer than 2^63 in all, got " +
                                int3_text(blocks));
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
  curve_ = MortonGrid(blocks);

  const std::int64_t n = global_block_count();
  if (!counts.empty()) {
    if (counts.size() != static_cast<std::size_t>(ranks)) {
      throw std::invalid_argument("block counts: " + std::to_string(counts.size()) + " given for " +
                                  std::to_string(ranks) + " ranks");
    }
    range_begins_.assign(1, 0);
    for (const std::int64_t c : counts) {
      if (c < 0) throw std::invalid_argument("block counts must be >= 0");
      range_begins_.push_back(range_begins_.back() + c);
    }
    if (range_begins_.back() != n) {
      throw std::invalid_argument("block counts sum to " + std::to_string(range_begins_.back()) +
                                  ", the mesh has " + std::to_string(n) + " blocks");
    }
  }
  first_local_curve_index_ = range_begin(rank);
  const std::int64_t end = range_begin(rank + 1);
  const std::vector<Int3> coords = curve_.blocks_in_range(first_local_curve_index_, end);
  local_.reserve(coords.size());
  for (std::size_t i = 0; i < coords.size(); ++i) {
    MeshBlock block;
    block.coord = coords[i];
    block.id = block_id(block.coord);
    block.curve_index = first_local_curve_index_ + static_cast<std::int64_t>(i);
    local_.push_back(block);
  }
  for (MeshBlock& block : local_) {
    for (int index = 0; index < Direction::kCount; ++index) {
      const Direction d = Direction::from_index(index);
      const GlobalBlockId nb = neighbour(block.coord, d);
      block.neighbour[index] = nb;
      block.neighbour_rank[index] = -1;
      block.neighbour_local[index] = kNotLocal;
      if (nb != kNoBlock) {
        const std::int64_t position = curve_index(nb);
        block.neighbour_rank[index] = owner_of_position(position);
        if (position >= first_local_curve_index_ && position < end) {
          block.neighbour_local[index] =
              static_cast<LocalBlockIndex>(position - first_local_curve_index_);
        }
      }
      const bool remote = nb != kNoBlock && block.neighbour_rank[index] != rank_;
      if (remote) {
        block.skeleton_full = true;
        if (d.order() == 1) block.skeleton_faces = true;
      }
    }
  }
}

MemoryEstimate UniformMesh::memory_estimate(Int3 blocks, Int3 block_cells, int ghost, int ranks,
                                            int field_variables, int halo_variables) {
  constexpr double kDouble = sizeof(double);
  const double local =
      std::ceil(static_cast<double>(blocks.x) * blocks.y * blocks.z / std::max(ranks, 1));
  double interior = 1, stored = 1, largest_face = 0;
  for (int a = 0; a < 3; ++a) {
    const bool flat = blocks[a] == 1 && block_cells[a] == 1;
    const double g = flat ? 0 : ghost;
    interior *= block_cells[a];
    // Rows are padded to a cache line (BlockLayout).
    stored *= block_cells[a] + 2 * g + (a == 0 ? BlockLayout::kRowAlignment : 0);
  }
  for (int a = 0; a < 3; ++a) {
    const bool flat = blocks[a] == 1 && block_cells[a] == 1;
    if (!flat) largest_face = std::max(largest_face, interior / block_cells[a] * ghost);
  }
  MemoryEstimate need;
  need.add("fields", field_variables * interior * kDouble * local);
  need.add("ghosts", field_variables * (stored - interior) * kDouble * local);
  if (ranks > 1) {
    const double remote_faces = std::min(6 * local, 12 * std::pow(local, 2.0 / 3.0));
    need.add("message buffers", 2 * halo_variables * remote_faces * largest_face * kDouble);
  }
  need.add("metadata", local * static_cast<double>(sizeof(MeshBlock) + sizeof(Int3)));
  return need;
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
  return owner_of_position(curve_index(id));
}

int UniformMesh::owner_of_position(std::int64_t position) const {
  if (range_begins_.empty()) return balanced_range_owner(global_block_count(), ranks_, position);
  // The last rank whose range begins at or before the position (empty ranges skipped).
  const auto it = std::upper_bound(range_begins_.begin(), range_begins_.end(), position);
  return static_cast<int>(it - range_begins_.begin()) - 1;
}

std::int64_t UniformMesh::range_begin(int r) const {
  if (range_begins_.empty()) return balanced_range_begin(global_block_count(), ranks_, r);
  return range_begins_[static_cast<std::size_t>(r)];
}

std::vector<std::int64_t> UniformMesh::counts() const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r) out[r] = range_begin(r + 1) - range_begin(r);
  return out;
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
  const std::int64_t i = curve_index(id) - first_local_curve_index_;
  if (i < 0 || i >= local_block_count()) return std::nullopt;
  return static_cast<LocalBlockIndex>(i);
}

}  // namespace tessera
