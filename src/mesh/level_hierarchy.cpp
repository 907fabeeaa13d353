#include "tessera/mesh/level_hierarchy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera {

std::vector<LevelShape> level_shapes(const HierarchySpec& spec) {
  if (spec.levels < 1) {
    throw std::invalid_argument(fmt::format("levels must be >= 1, got {}", spec.levels));
  }
  std::vector<LevelShape> shapes;
  Int3 cells = spec.cells;
  for (int level = 0; level < spec.levels; ++level) {
    LevelShape shape;
    for (int a = 0; a < 3; ++a) {
      const bool flat = spec.cells[a] == 1;
      if (level > 0 && !flat) {
        if (cells[a] % 2 != 0 || cells[a] < 2) {
          throw std::invalid_argument(fmt::format(
              "too many levels ({}) for {} cells on axis {}: level {} would have {} / 2 cells",
              spec.levels, spec.cells[a], "xyz"[a], level, cells[a]));
        }
        cells[a] /= 2;
      }
      if (cells[a] < 1 || spec.block_cells[a] < 1) {
        throw std::invalid_argument(
            fmt::format("cells and block cells must be >= 1 (axis {})", "xyz"[a]));
      }
      shape.block_cells[a] = std::min(spec.block_cells[a], cells[a]);
      if (cells[a] % shape.block_cells[a] != 0) {
        throw std::invalid_argument(
            fmt::format("block cells {} do not divide the {} cells of level {} on axis {}",
                        shape.block_cells[a], cells[a], level, "xyz"[a]));
      }
      shape.blocks[a] = cells[a] / shape.block_cells[a];
    }
    while (level > 0 && shape.blocks.x * shape.blocks.y * shape.blocks.z < spec.min_blocks) {
      const LevelShape& above = shapes.back();
      int axis = -1;
      for (int a = 0; a < 3; ++a) {
        const bool halvable = shape.block_cells[a] % 2 == 0 && shape.block_cells[a] >= 4 &&
                              2 * shape.blocks[a] <= above.blocks[a];
        if (halvable && (axis < 0 || shape.block_cells[a] > shape.block_cells[axis])) axis = a;
      }
      const int volume = shape.block_cells.x * shape.block_cells.y * shape.block_cells.z;
      if (axis < 0 || volume / 2 < spec.min_block_cells) break;
      shape.block_cells[axis] /= 2;
      shape.blocks[axis] *= 2;
    }
    shapes.push_back(shape);
  }
  return shapes;
}

LevelHierarchy::LevelHierarchy(const HierarchySpec& spec, Comm& comm, Exec& exec) : spec_(spec) {
  const std::vector<LevelShape> shapes = level_shapes(spec);
  for (std::size_t level = 0; level < shapes.size(); ++level) {
    meshes_.push_back(std::make_unique<UniformMesh>(shapes[level].blocks, shapes[level].block_cells,
                                                    spec.ghost, comm.rank(), comm.size(),
                                                    spec.periodic));
    plans_.push_back(std::make_unique<HaloPlan>(*meshes_.back(), spec.halo));
    halos_.push_back(std::make_unique<HaloExchange>(*plans_.back(), 1, comm, exec,
                                                    fmt::format("halo.L{}", level)));
  }
  for (std::size_t level = 0; level + 1 < shapes.size(); ++level) {
    transfers_.push_back(std::make_unique<LevelTransfer>(*meshes_[level], *meshes_[level + 1],
                                                         spec.prolongation_ghost, comm, exec,
                                                         fmt::format("transfer.L{}", level)));
  }
}

LevelHierarchy::~LevelHierarchy() = default;

MemoryEstimate LevelHierarchy::memory_estimate(const HierarchySpec& spec, int ranks,
                                               int level_fields, int finest_fields,
                                               int exchanges_per_level) {
  constexpr double kDouble = sizeof(double), kHandleBytes = 256, kTaskBytes = 512;
  // Tasks per block and level in flight or in a recorded iteration graph (smoothing,
  // residual, transfers, halo copies).
  constexpr double kTasksPerBlock = 16;
  const std::vector<LevelShape> shapes = level_shapes(spec);
  MemoryEstimate need;
  for (std::size_t level = 0; level < shapes.size(); ++level) {
    const LevelShape& shape = shapes[level];
    const int fields = level_fields + (level == 0 ? finest_fields : 0);
    const MemoryEstimate mesh = UniformMesh::memory_estimate(
        shape.blocks, shape.block_cells, spec.ghost, ranks, fields, exchanges_per_level);
    for (const auto& [what, bytes] : mesh.items) need.add(what, bytes);
    const double local = std::ceil(static_cast<double>(shape.blocks.x) * shape.blocks.y *
                                   shape.blocks.z / std::max(ranks, 1));
    need.add("metadata", local * (2 * fields * kHandleBytes + kTasksPerBlock * kTaskBytes));
    if (level == 0 || ranks < 2) continue;
    // A coarse block's children are consecutive on the fine level's Morton curve, so only
    // the pairs at the ends of a rank's two ranges cross ranks: at most 2 x 8 pairs, each
    // with a restriction (the coarse cells under the fine block) and a prolongation buffer
    // (those and the coarse ghosts read).
    double coarse_box = 1, grown_box = 1;
    for (int a = 0; a < 3; ++a) {
      const bool flat = spec.cells[a] == 1;
      const double c = flat ? 1 : std::max(1, shapes[level - 1].block_cells[a] / 2);
      coarse_box *= c;
      grown_box *= c + (flat ? 0 : 2 * spec.prolongation_ghost);
    }
    need.add("message buffers", 16 * (coarse_box + grown_box) * kDouble);
  }
  return need;
}

LevelField::LevelField(const LevelHierarchy& hierarchy, Runtime& runtime, const std::string& name) {
  for (int level = 0; level < hierarchy.levels(); ++level) {
    fields_.push_back(std::make_unique<BlockField>(hierarchy.mesh(level), runtime,
                                                   fmt::format("{}.L{}", name, level), 1));
  }
}

}  // namespace tessera
