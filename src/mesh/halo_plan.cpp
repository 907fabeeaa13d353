#include "tessera/mesh/halo_plan.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "tessera/mesh/morton.hpp"

namespace tessera {

namespace {

// One face (edge, corner) crossing to another rank, before it is placed in a message.
struct Crossing {
  int group;
  int peer;
  int direction_position;  // of the sender's direction in halo_directions
  GlobalBlockId sender;
  LocalBlockIndex block;
  Direction direction;  // from the local block towards the peer's block
  Box region;
};

int position_of(std::span<const Direction> directions, Direction d) {
  const auto it = std::find(directions.begin(), directions.end(), d);
  return static_cast<int>(it - directions.begin());
}

// The axis a face direction crosses.
int face_axis(Direction d) {
  return d.offset.x != 0 ? 0 : (d.offset.y != 0 ? 1 : 2);
}

// The region of face direction `d` (across axis a) that a staged exchange sends (`send`) or
// fills on `block`: the face's cells, widened on each axis before a over the ghosts on the
// sides where the block has a neighbour (the earlier stages filled exactly those). The two
// blocks of a face share their coordinates on the other axes, so both widen alike, and a
// ghost cell is filled iff the direct exchange would fill it.
Box staged_region(const BlockLayout& layout, const MeshBlock& block, Direction d, bool send) {
  Box box = send ? layout.send_region(d) : layout.ghost_region(d);
  for (int b = 0; b < face_axis(d); ++b) {
    Direction lower{{0, 0, 0}};
    lower.offset[b] = -1;
    if (block.neighbour[lower.index()] != kNoBlock) box.lo[b] = -layout.ghost()[b];
    if (block.neighbour[lower.opposite().index()] != kNoBlock) {
      box.hi[b] = layout.cells()[b] + layout.ghost()[b];
    }
  }
  return box;
}

}  // namespace

HaloPlan::HaloPlan(const UniformMesh& mesh, HaloOptions options) : mesh_(&mesh), options_(options) {
  if (options.max_comm_tasks < 0) {
    throw std::invalid_argument("halo plan: HaloOptions::max_comm_tasks must be >= 0, got " +
                                std::to_string(options.max_comm_tasks));
  }
  if (options.staged && (options.shape != HaloShape::full || !options.copy_local)) {
    throw std::invalid_argument(
        "halo plan: a staged exchange needs the full halo shape and local copies");
  }
  // A staged exchange moves faces only, in one group per axis.
  const auto directions = halo_directions(options.staged ? HaloShape::faces : options.shape);
  group_count_ = options.staged             ? 3
                 : options.separate_buffers ? 1
                                            : static_cast<int>(directions.size());

  // No (peer, direction) pair has more faces than the largest cross-section of the grid.
  const Int3 b = mesh.blocks();
  const std::int64_t largest_plane =
      std::max({std::int64_t{b.x} * b.y, std::int64_t{b.y} * b.z, std::int64_t{b.x} * b.z});
  std::int64_t max_messages = 1;
  if (options.max_comm_tasks > 0) {
    max_messages = std::min<std::int64_t>(options.max_comm_tasks, largest_plane);
  } else if (options.send_faces) {
    max_messages = largest_plane;
  }
  if (max_messages > INT_MAX / Direction::kCount) {
    throw std::invalid_argument("halo plan: too many messages per direction for MPI tags (" +
                                std::to_string(max_messages) + ")");
  }
  max_messages_ = static_cast<int>(max_messages);
  tag_count_ = Direction::kCount * max_messages_;

  const BlockLayout layout = mesh.layout(1);
  for (int group = 0; group < (options.staged ? group_count_ : 1); ++group) {
    for (LocalBlockIndex target = 0; target < mesh.local_block_count(); ++target) {
      const MeshBlock& block = mesh.local_block(target);
      for (Direction d : directions) {
        const LocalBlockIndex source = block.neighbour_local[d.index()];
        if (!options.copy_local || source == kNotLocal) continue;
        if (!options.staged) {
          copies_.push_back(
              {source, target, d, 0, layout.send_region(d.opposite()), layout.ghost_region(d)});
        } else if (face_axis(d) == group) {
          copies_.push_back({source, target, d, group,
                             staged_region(layout, mesh.local_block(source), d.opposite(), true),
                             staged_region(layout, block, d, false)});
        }
      }
    }
  }
  build_side(sends_, true);
  build_side(receives_, false);
}

void HaloPlan::build_side(HaloSide& side, bool send) {
  const UniformMesh& mesh = *mesh_;
  const BlockLayout layout = mesh.layout(1);
  const auto directions = halo_directions(options_.staged ? HaloShape::faces : options_.shape);
  // Staged exchanges keep each direction's sections in memory of their own, as separate
  // buffers do: a stage's sends must not wait for the previous stage's.
  const bool separate = options_.separate_buffers || options_.staged;

  std::vector<Crossing> crossings;
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    const MeshBlock& block = mesh.local_block(b);
    for (Direction d : directions) {
      const GlobalBlockId nb = block.neighbour[d.index()];
      const int peer = block.neighbour_rank[d.index()];
      if (nb == kNoBlock || peer == mesh.rank()) continue;
      const int position = position_of(directions, send ? d : d.opposite());
      const int group = options_.staged ? face_axis(d) : (separate ? 0 : position);
      const Box region = options_.staged ? staged_region(layout, block, d, send)
                         : send          ? layout.send_region(d)
                                         : layout.ghost_region(d);
      crossings.push_back({group, peer, position, send ? block.id : nb, b, d, region});
    }
  }

  // Buffer layout: one region per peer (in rank order); inside it the directions follow
  // each other (separate buffers) or all start at the region's start (shared buffers).
  std::map<std::pair<int, int>, std::int64_t> direction_cells;
  for (const Crossing& c : crossings) {
    direction_cells[{c.peer, c.direction_position}] += c.region.cells();
  }
  std::map<std::pair<int, int>, std::int64_t> direction_offset;
  std::int64_t peer_base = 0;
  std::int64_t peer_extent = 0;
  std::int64_t running = 0;
  int current_peer = -1;
  for (const auto& [key, cells] : direction_cells) {
    if (key.first != current_peer) {
      peer_base += peer_extent;
      peer_extent = 0;
      running = 0;
      current_peer = key.first;
    }
    const std::int64_t start = separate ? running : 0;
    direction_offset[key] = peer_base + start;
    running = start + cells;
    peer_extent = std::max(peer_extent, running);
  }
  side.buffer_cells = peer_base + peer_extent;

  std::sort(crossings.begin(), crossings.end(), [](const Crossing& a, const Crossing& b) {
    return std::tie(a.group, a.peer, a.direction_position, a.sender) <
           std::tie(b.group, b.peer, b.direction_position, b.sender);
  });
  for (std::size_t first = 0; first < crossings.size();) {
    std::size_t last = first;
    while (last < crossings.size() && crossings[last].peer == crossings[first].peer &&
           crossings[last].direction_position == crossings[first].direction_position) {
      ++last;
    }
    const Crossing& head = crossings[first];
    const std::int64_t faces = static_cast<std::int64_t>(last - first);
    std::int64_t count = 1;
    if (options_.max_comm_tasks > 0) {
      count = std::min<std::int64_t>(options_.max_comm_tasks, faces);
    } else if (options_.send_faces) {
      count = faces;
    }
    const Direction sender_direction = send ? head.direction : head.direction.opposite();
    std::int64_t offset = direction_offset[{head.peer, head.direction_position}];
    for (int m = 0; m < count; ++m) {
      HaloMessage message;
      message.peer = head.peer;
      message.direction = head.direction;
      message.index = m;
      message.tag_index = sender_direction.index() * max_messages_ + m;
      message.offset = offset;
      message.first_section = static_cast<int>(side.sections.size());
      message.group = head.group;
      const std::size_t begin = first + balanced_range_begin(faces, static_cast<int>(count), m);
      const std::size_t end = first + balanced_range_begin(faces, static_cast<int>(count), m + 1);
      for (std::size_t i = begin; i < end; ++i) {
        HaloSection section;
        section.block = crossings[i].block;
        section.direction = crossings[i].direction;
        section.region = crossings[i].region;
        section.offset = offset;
        section.cells = section.region.cells();
        section.message = static_cast<int>(side.messages.size());
        offset += section.cells;
        message.cells += section.cells;
        side.sections.push_back(std::move(section));
      }
      message.section_count = static_cast<int>(side.sections.size()) - message.first_section;
      side.messages.push_back(message);
    }
    first = last;
  }

  if (separate || group_count_ == 1) return;
  // Shared buffers: record which sections of other groups use the same memory. Within one
  // (group, peer) the sections are disjoint and ordered by offset.
  std::map<std::pair<int, int>, std::vector<int>> by_peer_and_group;
  for (int s = 0; s < static_cast<int>(side.sections.size()); ++s) {
    const HaloMessage& m = side.messages[side.sections[s].message];
    by_peer_and_group[{m.peer, m.group}].push_back(s);
  }
  for (auto& [key, list] : by_peer_and_group) {
    for (int s : list) {
      HaloSection& section = side.sections[s];
      const std::int64_t begin = section.offset;
      const std::int64_t end = section.offset + section.cells;
      for (auto it = by_peer_and_group.lower_bound({key.first, 0});
           it != by_peer_and_group.end() && it->first.first == key.first; ++it) {
        if (it->first.second == key.second) continue;
        const std::vector<int>& others = it->second;
        auto o = std::partition_point(others.begin(), others.end(), [&](int t) {
          return side.sections[t].offset + side.sections[t].cells <= begin;
        });
        for (; o != others.end() && side.sections[*o].offset < end; ++o) {
          section.overlaps.push_back(*o);
        }
      }
    }
  }
}

}  // namespace tessera
