#include "tessera/mesh/halo_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <new>
#include <stdexcept>

namespace tessera {

namespace {

// Modelled compute's variant of a pack, unpack or copy of direction `d`'s region
// (TaskAttributes::work_variant): the fastest axis it crosses. A region one cell thick in x
// (x faces, and edges and corners) is one value per row, a cache line each; one cell thick
// in y is rows; only in z, one plane: same values, costs ~3x apart.
std::int32_t layout_variant(Direction d) {
  return d.offset.x != 0 ? 1 : d.offset.y != 0 ? 2 : 3;
}

// Whether a face section of direction `d` lies across an axis of `axes` (HaloFusion mask).
bool across(Direction d, std::uint8_t axes) {
  const int bit = d.offset.x != 0 ? 1 : d.offset.y != 0 ? 2 : 4;
  return (axes & bit) != 0;
}

// Zeroed doubles on 64-byte lines (at least one line, so the pointer is never null).
double* allocate_buffer(std::int64_t doubles) {
  const std::size_t bytes =
      (static_cast<std::size_t>(std::max<std::int64_t>(doubles, 1)) * sizeof(double) + 63) / 64 *
      64;
  auto* memory = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (!memory) throw std::bad_alloc();
  std::fill_n(memory, bytes / sizeof(double), 0.0);
  return memory;
}

// Keeps one access per handle (the first after sorting by handle): a task listing a
// handle twice would wait for itself.
void drop_repeated_handles(std::vector<Access>& accesses) {
  std::sort(accesses.begin(), accesses.end(),
            [](const Access& a, const Access& b) { return a.handle.id() < b.handle.id(); });
  accesses.erase(std::unique(accesses.begin(), accesses.end(),
                             [](const Access& a, const Access& b) { return a.handle == b.handle; }),
                 accesses.end());
}

}  // namespace

HaloExchange::HaloExchange(const HaloPlan& plan, int nvars, Comm& comm, Exec& exec,
                           const std::string& name)
    : plan_(plan), nvars_(nvars), comm_(comm), exec_(exec) {
  if (nvars < 1) throw std::invalid_argument(fmt::format("{}: nvars must be >= 1", name));
  tags_ = comm.allocate_tags(name, plan.tag_count());
  for (const HaloSide* side : {&plan.sends(), &plan.receives()}) {
    for (const HaloMessage& m : side->messages) {
      if (m.cells * nvars > INT_MAX) {
        throw std::invalid_argument(
            fmt::format("{}: a message of {} doubles exceeds what one MPI message may carry; set "
                        "HaloOptions::send_faces or HaloOptions::max_comm_tasks",
                        name, m.cells * nvars));
      }
    }
  }
  send_buffer_.reset(allocate_buffer(plan.sends().buffer_cells * nvars));
  receive_buffer_.reset(allocate_buffer(plan.receives().buffer_cells * nvars));
  Runtime& runtime = comm.runtime();
  for (const HaloSection& s : plan.sends().sections) {
    const HaloMessage& m = plan.sends().messages[s.message];
    send_handles_.push_back(runtime.create_handle(
        fmt::format("{}.send[rank {} {} #{} block {}]", name, m.peer, direction_name(m.direction),
                    m.index, plan.mesh().local_block(s.block).id)));
  }
  for (const HaloSection& s : plan.receives().sections) {
    const HaloMessage& m = plan.receives().messages[s.message];
    receive_handles_.push_back(runtime.create_handle(
        fmt::format("{}.recv[rank {} {} #{} block {}]", name, m.peer, direction_name(m.direction),
                    m.index, plan.mesh().local_block(s.block).id)));
  }
}

void HaloExchange::check_field(const BlockField& field, std::uint8_t unpacked) const {
  if (&field.mesh() != &plan_.mesh() || field.nvars() != nvars_) {
    throw std::invalid_argument(
        fmt::format("halo exchange of field '{}': expected {} variable(s) on the plan's mesh",
                    field.name(), nvars_));
  }
  if (field.stores_ghosts()) return;
  // Nothing may write ghost cells the field does not have (a staged exchange passes edges
  // and corners on through them).
  if (!plan_.copies().empty() || plan_.options().staged) {
    throw std::invalid_argument(fmt::format(
        "halo exchange of field '{}': it stores no ghost cells, so the plan must neither copy "
        "local ghosts nor be staged",
        field.name()));
  }
  for (const HaloSection& section : plan_.receives().sections) {
    if (plan_.options().shape != HaloShape::faces || !across(section.direction, unpacked)) {
      throw std::invalid_argument(fmt::format(
          "halo exchange of field '{}': it stores no ghost cells, so every unpack must be "
          "fused (HaloFusion::unpacked)",
          field.name()));
    }
  }
}

void HaloExchange::exchange_local(BlockField& field) {
  check_field(field, 0x7);  // no receives: only the copies matter
  if (plan_.options().staged) {
    for (int group = 0; group < plan_.group_count(); ++group) {
      exec_.begin_phase("halo");
      submit_staged_copies(field, group);
      exec_.end_phase();
    }
    return;
  }
  exec_.begin_phase("halo");
  submit_copies(field);
  exec_.end_phase();
}

void HaloExchange::exchange(BlockField& field) {
  exchange(field, HaloFusion{});
}

void HaloExchange::exchange(BlockField& field, HaloFusion fusion) {
  check_field(field, fusion.unpacked);
  if ((fusion.packed | fusion.unpacked) != 0 &&
      (plan_.options().shape != HaloShape::faces || !plan_.options().separate_buffers)) {
    throw std::invalid_argument(
        "halo exchange: fused packing needs a faces-only plan with separate buffers");
  }
  for (int group = 0; group < plan_.group_count(); ++group) {
    exec_.begin_phase("halo");
    submit_packs(field, group, fusion.packed);
    exec_.end_phase();
    exec_.begin_phase("halo");
    submit_messages(group);
    // Local copies overlap the messages in flight (workers run them while the main thread
    // drives MPI); they do not touch buffers, so one group carries them all, except in a
    // staged exchange, whose later stages copy ghosts the earlier ones filled.
    if (plan_.options().staged) {
      submit_staged_copies(field, group);
    } else if (group == 0) {
      submit_copies(field);
    }
    exec_.end_phase();
    exec_.begin_phase("halo");
    submit_unpacks(field, group, fusion.unpacked);
    exec_.end_phase();
  }
}

void HaloExchange::collect_writes(const HaloSide& side, const std::vector<Handle>& handles,
                                  int first, int count) {
  for (int s = first; s < first + count; ++s) {
    accesses_.push_back(write(handles[s]));
    for (int other : side.sections[s].overlaps) accesses_.push_back(write(handles[other]));
  }
  drop_repeated_handles(accesses_);
}

void HaloExchange::submit_packs(BlockField& field, int group, std::uint8_t skipped_axes) {
  Runtime& runtime = comm_.runtime();
  const HaloSide& side = plan_.sends();
  const BlockLayout* layout = &field.layout();
  for (int s = 0; s < static_cast<int>(side.sections.size()); ++s) {
    const HaloSection& section = side.sections[s];
    if (side.messages[section.message].group != group) continue;
    if (across(section.direction, skipped_axes)) continue;
    accesses_.clear();
    collect_writes(side, send_handles_, s, 1);
    accesses_.push_back(read(field.interior(section.block)));
    // A later stage's face spans ghosts that the earlier stages filled.
    if (plan_.options().staged && group > 0) accesses_.push_back(read(field.ghosts(section.block)));
    const double* block = field.data(section.block);
    double* out = send_buffer_.get() + section.offset * nvars_;
    TaskAttributes attributes(
        exec_.skeleton_priority(),
        {plan_.mesh().local_block(section.block).id, section.direction.index()});
    attributes.work = section.cells * nvars_;  // values copied (modelled compute)
    attributes.work_variant = layout_variant(section.direction);
    runtime.submit(
        "halo.pack", std::span<const Access>(accesses_),
        [layout, block, region = section.region, out] { pack_region(*layout, block, region, out); },
        attributes);
  }
}

void HaloExchange::submit_messages(int group) {
  const HaloSide& receives = plan_.receives();
  const TaskAttributes attributes(exec_.skeleton_priority());
  for (const HaloMessage& m : receives.messages) {
    if (m.group != group) continue;
    accesses_.clear();
    collect_writes(receives, receive_handles_, m.first_section, m.section_count);
    double* data = receive_buffer_.get() + m.offset * nvars_;
    const int count = static_cast<int>(m.cells * nvars_);
    const int peer = m.peer;
    const int tag = tags_.tag(m.tag_index);
    TaskAttributes a = attributes;
    a.tags = TaskTags{peer, tag};
    comm_.irecv(accesses_, data, count * sizeof(double), peer, tag, a, "halo.recv");
  }
  const HaloSide& sends = plan_.sends();
  for (const HaloMessage& m : sends.messages) {
    if (m.group != group) continue;
    accesses_.clear();
    for (int s = m.first_section; s < m.first_section + m.section_count; ++s) {
      accesses_.push_back(read(send_handles_[s]));
    }
    const double* data = send_buffer_.get() + m.offset * nvars_;
    const int count = static_cast<int>(m.cells * nvars_);
    const int peer = m.peer;
    const int tag = tags_.tag(m.tag_index);
    TaskAttributes a = attributes;
    a.tags = TaskTags{peer, tag};
    comm_.isend(accesses_, data, count * sizeof(double), peer, tag, a, "halo.send");
  }
}

void HaloExchange::submit_copies(BlockField& field) {
  Runtime& runtime = comm_.runtime();
  const BlockLayout* layout = &field.layout();
  if (plan_.options().copy_per_block) {
    submit_block_copies(field);
    return;
  }
  for (const HaloCopy& copy : plan_.copies()) {
    const MeshBlock& target = plan_.mesh().local_block(copy.target);
    const Priority priority =
        target.is_skeleton(plan_.options().shape) ? exec_.skeleton_priority() : Priority::normal;
    TaskAttributes attributes(priority, {target.id, copy.direction.index()});
    attributes.work = layout->ghost_region(copy.direction).cells();  // modelled compute
    attributes.work_variant = layout_variant(copy.direction);
    runtime.submit(
        "halo.copy", {read(field.interior(copy.source)), readwrite(field.ghosts(copy.target))},
        [layout, from = field.data(copy.source), to = field.data(copy.target), d = copy.direction] {
          copy_region(*layout, from, layout->send_region(d.opposite()), to,
                      layout->ghost_region(d));
        },
        attributes);
  }
}

void HaloExchange::submit_block_copies(BlockField& field) {
  Runtime& runtime = comm_.runtime();
  const std::vector<HaloCopy>& copies = plan_.copies();
  for (std::size_t first = 0; first < copies.size();) {
    std::size_t last = first;
    const LocalBlockIndex target = copies[first].target;
    accesses_.clear();
    while (last < copies.size() && copies[last].target == target) {
      accesses_.push_back(read(field.interior(copies[last].source)));
      ++last;
    }
    // A neighbour reached in several directions (periodic axes with few blocks) is listed
    // once: a handle listed twice would make the task wait for itself.
    drop_repeated_handles(accesses_);
    accesses_.push_back(readwrite(field.ghosts(target)));
    const MeshBlock& block = plan_.mesh().local_block(target);
    const Priority priority =
        block.is_skeleton(plan_.options().shape) ? exec_.skeleton_priority() : Priority::normal;
    TaskAttributes attributes(priority, {block.id});
    for (std::size_t c = first; c < last; ++c) {
      attributes.work += field.layout().ghost_region(copies[c].direction).cells();
    }
    runtime.submit(
        "halo.copy", std::span<const Access>(accesses_),
        [f = &field, list = copies.data() + first, count = last - first] {
          const BlockLayout& layout = f->layout();
          for (std::size_t c = 0; c < count; ++c) {
            const HaloCopy& copy = list[c];
            copy_region(layout, f->data(copy.source), layout.send_region(copy.direction.opposite()),
                        f->data(copy.target), layout.ghost_region(copy.direction));
          }
        },
        attributes);
    first = last;
  }
}

void HaloExchange::submit_staged_copies(BlockField& field, int group) {
  Runtime& runtime = comm_.runtime();
  const std::vector<HaloCopy>& copies = plan_.copies();
  for (std::size_t first = 0; first < copies.size();) {
    if (copies[first].group != group) {
      ++first;
      continue;
    }
    // One task per target block and stage: its (at most two) faces of this stage.
    std::size_t last = first;
    const LocalBlockIndex target = copies[first].target;
    accesses_.clear();
    std::int64_t cells = 0;
    while (last < copies.size() && copies[last].group == group && copies[last].target == target) {
      accesses_.push_back(read(field.interior(copies[last].source)));
      if (group > 0) accesses_.push_back(read(field.ghosts(copies[last].source)));
      cells += copies[last].to_region.cells();
      ++last;
    }
    // Each handle once (a handle listed twice would make the task wait for itself); the
    // target's own ghosts, read when a periodic axis makes the block its own neighbour,
    // are covered by the readwrite below.
    const Handle target_ghosts = field.ghosts(target);
    drop_repeated_handles(accesses_);
    std::erase_if(accesses_, [&](const Access& a) { return a.handle == target_ghosts; });
    accesses_.push_back(readwrite(target_ghosts));
    const MeshBlock& block = plan_.mesh().local_block(target);
    const Priority priority =
        block.is_skeleton(plan_.options().shape) ? exec_.skeleton_priority() : Priority::normal;
    TaskAttributes attributes(priority, {block.id, group});
    attributes.work = cells;  // modelled compute
    // The stage's faces cross its axis: x (1) strided, y (2) rows, z (3) planes; the direct
    // exchange's per-block copies (all directions) stay variant 0.
    attributes.work_variant = static_cast<std::uint8_t>(group + 1);
    runtime.submit(
        "halo.copy", std::span<const Access>(accesses_),
        [f = &field, list = copies.data() + first, count = last - first] {
          const BlockLayout& layout = f->layout();
          for (std::size_t c = 0; c < count; ++c) {
            const HaloCopy& copy = list[c];
            copy_region(layout, f->data(copy.source), copy.from_region, f->data(copy.target),
                        copy.to_region);
          }
        },
        attributes);
    first = last;
  }
}

void HaloExchange::submit_unpacks(BlockField& field, int group, std::uint8_t skipped_axes) {
  Runtime& runtime = comm_.runtime();
  const HaloSide& side = plan_.receives();
  const BlockLayout* layout = &field.layout();
  for (int s = 0; s < static_cast<int>(side.sections.size()); ++s) {
    const HaloSection& section = side.sections[s];
    if (side.messages[section.message].group != group) continue;
    if (across(section.direction, skipped_axes)) continue;
    const double* in = receive_buffer_.get() + section.offset * nvars_;
    TaskAttributes attributes(
        exec_.skeleton_priority(),
        {plan_.mesh().local_block(section.block).id, section.direction.index()});
    attributes.work = section.cells * nvars_;  // values copied (modelled compute)
    attributes.work_variant = layout_variant(section.direction);
    runtime.submit(
        "halo.unpack", {read(receive_handles_[s]), readwrite(field.ghosts(section.block))},
        [layout, block = field.data(section.block), region = section.region, in] {
          unpack_region(*layout, block, region, in);
        },
        attributes);
  }
}

}  // namespace tessera
