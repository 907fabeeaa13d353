// Ghost exchange plan and tasks. A Link moves one face (or one quarter of a face, across a
// level jump) from a sender block to a receiver block; what it carries and how it is packed
// and unpacked is in halo_payload.hpp. This file builds the plan (links, messages, buffers)
// and submits its tasks.
// Tasks hold raw pointers to block data taken when the plan is built: slots never move, and
// the BlockStore's tables are only touched by the main thread.
#include "tessera/amr/halo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>
#include <stdexcept>
#include <tuple>

#include "amr/halo_payload.hpp"

namespace tessera {

using halo_payload::copy_link;
using halo_payload::FaceFrame;
using halo_payload::is_boundary;
using halo_payload::LinkKind;
using halo_payload::pack_link;
using halo_payload::payload_values;
using halo_payload::unpack_link;

struct AmrHalo::Link {
  const double* src = nullptr;      // sender's data (set where the sender is local)
  double* dst = nullptr;            // receiver's data (set where the receiver is local)
  std::int32_t sender_slot = -1;    // where the sender is local (the receiver's for boundary)
  std::int32_t receiver_slot = -1;  // where the receiver is local
  std::int8_t face = 0;             // receiver's face
  LinkKind kind = LinkKind::same;
  std::int8_t q0 = 0, q1 = 0;  // quarter of the coarse block's face, across a level jump
  std::int64_t sender_gid = 0, receiver_gid = 0;
  std::size_t offset = 0;  // values per variable before this link in its message
};

struct AmrHalo::Message {
  int peer = 0;
  int axis = 0;
  int chunk = 0;
  std::vector<Link> links;
  std::size_t values_per_var = 0;
  int buffer = 0;
};

struct AmrHalo::LocalFill {
  double* dst = nullptr;
  std::int32_t receiver_slot = 0;
  bool skeleton = false;
  std::vector<Link> links;  // on-rank senders and boundary faces
};

struct AmrHalo::FaceFrames {
  FaceFrame face[kBlockFaces];
};

struct AmrHalo::Buffer {
  std::vector<double> data;
  Handle handle;
};

namespace {

// Receiver-side description of how a neighbour across `face` feeds a block.
struct Relation {
  LinkKind kind;
  int q0, q1;
};

// Quarter of the coarse block `coarse`'s face that the fine block `fine` covers.
std::pair<int, int> quarter_of(const BlockPlace& fine, const BlockPlace& coarse, int face) {
  const int axis = face / 2;
  const int t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
  return {static_cast<int>((fine.origin[t0] - coarse.origin[t0]) / fine.length()),
          static_cast<int>((fine.origin[t1] - coarse.origin[t1]) / fine.length())};
}

// The link kinds of a rule: (receiver finer, receiver coarser).
std::pair<LinkKind, LinkKind> level_jump_kinds(LevelJumpRule rule) {
  if (rule == LevelJumpRule::custom) return {LinkKind::child, LinkKind::parent};
  if (rule == LevelJumpRule::per_volume) return {LinkKind::prolong, LinkKind::average};
  return {LinkKind::from_coarse, LinkKind::from_fine};
}

}  // namespace

Handle HandlePool::next() {
  if (next_ == handles_.size())
    handles_.push_back(runtime_.create_handle(fmt::format("{}{}", name_, handles_.size())));
  return handles_[next_++];
}

AmrHalo::AmrHalo(const Forest& forest, BlockStore& store, std::span<const std::int32_t> slots,
                 Comm& comm, const TagSpace& tags, HandlePool& buffers, AmrHaloOptions options)
    : store_(store),
      comm_(comm),
      tags_(tags),
      options_(options),
      frames_(std::make_unique<FaceFrames>()) {
  for (int f = 0; f < kBlockFaces; ++f) {
    frames_->face[f] = FaceFrame(store.shape(), f, options.corners);
    frames_->face[f].transfer = options.transfer;
  }
  if (options.level_jumps == LevelJumpRule::custom) {
    const BlockShape& s = store.shape();
    if (options.transfer == nullptr)
      throw std::logic_error("AmrHalo: custom level jumps need a CellTransfer");
    for (int a = 0; a < 3; ++a)
      if (s.ghost[a] > 1 || (s.ghost[a] == 1 && s.cells[a] < 2))
        throw std::logic_error("AmrHalo: custom level jumps need one ghost layer and 2 cells");
    if (options.corners)
      throw std::logic_error("AmrHalo: custom level jumps fill face ghosts only (no corners)");
  }
  if (options.level_jumps == LevelJumpRule::per_volume) {
    const BlockShape& s = store.shape();
    for (int a = 0; a < 3; ++a)
      if (s.ghost[a] > 0 && 2 * s.ghost[a] > s.cells[a])
        throw std::logic_error("AmrHalo: per-volume level jumps need 2 * ghost <= cells per axis");
    if (options.corners)
      throw std::logic_error("AmrHalo: per-volume level jumps fill face ghosts only (no corners)");
  }
  skeleton_.assign(static_cast<std::size_t>(forest.local_count()), 0);
  build_local(forest, slots);
  build_remote(forest, slots);
  assign_buffers(buffers);
}

AmrHalo::~AmrHalo() = default;

void AmrHalo::build_local(const Forest& forest, std::span<const std::int32_t> slots) {
  const std::int32_t n = forest.local_count();
  const bool per_volume = options_.level_jumps != LevelJumpRule::per_cell_amount;
  const auto [from_coarse, from_fine] = level_jump_kinds(options_.level_jumps);
  local_.clear();
  local_.resize(static_cast<std::size_t>(n));
  for (std::int32_t b = 0; b < n; ++b) {
    LocalFill& fill = local_[static_cast<std::size_t>(b)];
    fill.receiver_slot = slots[static_cast<std::size_t>(b)];
    fill.dst = store_.data(fill.receiver_slot);
    const BlockPlace& me = forest.local(b);
    for (int f = 0; f < kBlockFaces; ++f) {
      if (store_.shape().ghost[static_cast<std::size_t>(f / 2)] == 0) continue;  // flat axis
      const FaceNeighbors& nb = forest.neighbors(b, f);
      if ((nb.kind == FaceKind::coarser || nb.kind == FaceKind::finer) && !per_volume &&
          store_.shape().wide_ghosts())
        throw std::logic_error(
            "AmrHalo: a level jump needs one ghost layer per axis (BlockShape::ghost)");
      const auto add = [&](BlockRef sender, Relation rel) {
        Link link;
        link.face = static_cast<std::int8_t>(f);
        link.kind = rel.kind;
        link.q0 = static_cast<std::int8_t>(rel.q0);
        link.q1 = static_cast<std::int8_t>(rel.q1);
        link.dst = fill.dst;
        link.receiver_slot = fill.receiver_slot;
        if (is_boundary(rel.kind) || !sender.ghost) {
          link.sender_slot = is_boundary(rel.kind) ? fill.receiver_slot
                                                   : slots[static_cast<std::size_t>(sender.index)];
          link.src = store_.data(link.sender_slot);
          fill.links.push_back(link);
          ++counts_.local_faces;
        }
      };
      switch (nb.kind) {
        case FaceKind::boundary:
          add(BlockRef{},
              {options_.boundary[static_cast<std::size_t>(f)] == BoundaryKind::reflecting
                   ? LinkKind::reflecting
                   : LinkKind::outflow,
               0, 0});
          break;
        case FaceKind::same:
          add(nb.blocks[0], {LinkKind::same, 0, 0});
          break;
        case FaceKind::coarser: {
          const auto [q0, q1] = quarter_of(me, forest.place(nb.blocks[0]), f);
          add(nb.blocks[0], {from_coarse, q0, q1});
          break;
        }
        case FaceKind::finer:
          for (int h = 0; h < nb.count(); ++h)
            add(nb.blocks[static_cast<std::size_t>(h)], {from_fine, h % 2, h / 2});
          break;
      }
    }
  }
}

void AmrHalo::build_remote(const Forest& forest, std::span<const std::int32_t> slots) {
  // (peer, axis) -> links, for both directions.
  std::map<std::pair<int, int>, std::vector<Link>> send_links, recv_links;
  const std::int32_t n = forest.local_count();
  const auto [from_coarse, from_fine] = level_jump_kinds(options_.level_jumps);
  for (std::int32_t b = 0; b < n; ++b) {
    const BlockPlace& me = forest.local(b);
    const std::int64_t my_gid = forest.global_index(BlockRef{false, b});
    const std::int32_t slot = slots[static_cast<std::size_t>(b)];
    double* data = store_.data(slot);
    for (int f = 0; f < kBlockFaces; ++f) {
      if (store_.shape().ghost[static_cast<std::size_t>(f / 2)] == 0) continue;  // flat axis
      const FaceNeighbors& nb = forest.neighbors(b, f);
      for (int h = 0; h < nb.count(); ++h) {
        const BlockRef other = nb.blocks[static_cast<std::size_t>(h)];
        if (!other.ghost) continue;
        const BlockPlace& them = forest.ghost(other.index);
        const int peer = forest.ghost_owner(other.index);
        const std::int64_t their_gid = forest.global_index(other);
        // This block receives across face f ...
        Link in;
        in.face = static_cast<std::int8_t>(f);
        in.dst = data;
        in.receiver_slot = slot;
        in.sender_gid = their_gid;
        in.receiver_gid = my_gid;
        // ... and sends across face f to a receiver whose face is f ^ 1.
        Link out;
        out.face = static_cast<std::int8_t>(f ^ 1);
        out.src = data;
        out.sender_slot = slot;
        out.sender_gid = my_gid;
        out.receiver_gid = their_gid;
        if (nb.kind == FaceKind::same) {
          in.kind = out.kind = LinkKind::same;
        } else if (nb.kind == FaceKind::coarser) {
          const auto [q0, q1] = quarter_of(me, them, f);
          in.kind = from_coarse;
          out.kind = from_fine;
          in.q0 = out.q0 = static_cast<std::int8_t>(q0);
          in.q1 = out.q1 = static_cast<std::int8_t>(q1);
        } else {
          in.kind = from_fine;
          out.kind = from_coarse;
          in.q0 = out.q0 = static_cast<std::int8_t>(h % 2);
          in.q1 = out.q1 = static_cast<std::int8_t>(h / 2);
        }
        recv_links[{peer, f / 2}].push_back(in);
        send_links[{peer, f / 2}].push_back(out);
        skeleton_[static_cast<std::size_t>(b)] = 1;
      }
    }
  }

  const auto make_messages = [&](std::map<std::pair<int, int>, std::vector<Link>>& groups,
                                 std::vector<Message>& out) {
    out.clear();
    for (auto& [key, links] : groups) {
      // Both sides order a (peer, axis) pair's faces the same way: by sender, then receiver,
      // then the receiver's face (on a periodic axis two blocks can meet across two faces).
      std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) {
        return std::tie(a.sender_gid, a.receiver_gid, a.face) <
               std::tie(b.sender_gid, b.receiver_gid, b.face);
      });
      std::size_t chunks = 1;
      if (options_.send_faces) {
        chunks = links.size();
        if (options_.max_comm_tasks > 0)
          chunks = std::min(chunks, static_cast<std::size_t>(options_.max_comm_tasks));
        chunks = std::min(chunks, static_cast<std::size_t>(kMaxChunks));
      }
      for (std::size_t c = 0; c < chunks; ++c) {
        Message m;
        m.peer = key.first;
        m.axis = key.second;
        m.chunk = static_cast<int>(c);
        const std::size_t begin = c * links.size() / chunks, end = (c + 1) * links.size() / chunks;
        for (std::size_t i = begin; i < end; ++i) {
          Link link = links[i];
          link.offset = m.values_per_var;
          m.values_per_var += payload_values(frames_->face[link.face], link.kind);
          m.links.push_back(link);
        }
        out.push_back(std::move(m));
      }
    }
  };
  make_messages(send_links, sends_);
  make_messages(recv_links, receives_);
  for (std::size_t b = 0; b < local_.size(); ++b) local_[b].skeleton = skeleton_[b] != 0;
  for (const Message& m : receives_) {
    ++counts_.messages;
    counts_.remote_faces += static_cast<std::int64_t>(m.links.size());
    counts_.values_per_var += static_cast<std::int64_t>(m.values_per_var);
  }
}

void AmrHalo::assign_buffers(HandlePool& pool) {
  pool.reset();
  buffers_.clear();
  const auto group_vars = static_cast<std::size_t>(store_.shape().group_size);
  // Without separate buffers, the three axes' messages of one (peer, chunk) share a buffer.
  const auto assign = [&](std::vector<Message>& messages) {
    std::map<std::tuple<int, int, int>, int> shared;
    for (Message& m : messages) {
      const auto key = std::make_tuple(m.peer, m.chunk, options_.separate_buffers ? m.axis : -1);
      auto [it, fresh] = shared.try_emplace(key, static_cast<int>(buffers_.size()));
      if (fresh) buffers_.push_back(Buffer{{}, pool.next()});
      m.buffer = it->second;
      auto& data = buffers_[static_cast<std::size_t>(m.buffer)].data;
      data.resize(std::max(data.size(), m.values_per_var * group_vars));
    }
  };
  assign(sends_);
  assign(receives_);
}

void AmrHalo::submit(int g, Exec& exec) {
  if (options_.corners) {
    for (int axis = 0; axis < 3; ++axis) submit_pass(g, axis, axis, exec);
  } else {
    submit_pass(g, 0, 2, exec);
  }
}

void AmrHalo::submit_pass(int g, int first_axis, int last_axis, Exec& exec) {
  Runtime& runtime = comm_.runtime();
  const BlockShape& shape = store_.shape();
  const int first_var = shape.group_first(g);
  const int vars = shape.group_vars(g);
  const bool corners = options_.corners;
  const Priority skeleton = exec.skeleton_priority();
  const TaskAttributes comm_attr = Comm::comm_attributes(TaskAttributes(skeleton));
  BlockStore& store = store_;
  const FaceFrames* frames = frames_.get();

  // Handles a task reads to take a sender's face: its interior, and with corners the ghosts
  // of the axes exchanged before this face's axis.
  const auto add_sender_reads = [&](std::vector<Access>& acc, std::int32_t slot, int face_axis) {
    acc.push_back(read(store.interior(slot, g)));
    if (corners)
      for (int a = 0; a < face_axis; ++a) acc.push_back(read(store.ghosts(slot, g, a)));
  };

  const auto submit_unpacks = [&](int axis) {
    for (Message& m : receives_) {
      if (m.axis != axis) continue;
      Buffer& buf = buffers_[static_cast<std::size_t>(m.buffer)];
      std::vector<Access> acc{read(buf.handle)};
      for (const Link& link : m.links) {
        acc.push_back(write(store.ghosts(link.receiver_slot, g, axis)));
        if (link.kind == LinkKind::prolong)
          acc.push_back(read(store.interior(link.receiver_slot, g)));
      }
      const Message* msg = &m;
      const double* in = buf.data.data();
      runtime.submit(
          "halo_unpack", std::span<const Access>(acc),
          [msg, in, frames, first_var, vars] {
            for (const Link& link : msg->links)
              unpack_link(frames->face[link.face], link.kind, link.q0, link.q1, link.dst, first_var,
                          vars, in + link.offset * static_cast<std::size_t>(vars));
          },
          TaskAttributes(skeleton));
    }
  };

  for (int axis = first_axis; axis <= last_axis; ++axis) {
    for (Message& m : receives_) {
      if (m.axis != axis) continue;
      Buffer& buf = buffers_[static_cast<std::size_t>(m.buffer)];
      comm_.irecv(buf.handle, buf.data.data(), m.values_per_var * vars * sizeof(double), m.peer,
                  tags_.tag(m.axis * kMaxChunks + m.chunk), comm_attr, "halo_recv");
    }
    for (Message& m : sends_) {
      if (m.axis != axis) continue;
      Buffer& buf = buffers_[static_cast<std::size_t>(m.buffer)];
      std::vector<Access> acc{write(buf.handle)};
      for (const Link& link : m.links) add_sender_reads(acc, link.sender_slot, axis);
      const Message* msg = &m;
      double* out = buf.data.data();
      runtime.submit(
          "halo_pack", std::span<const Access>(acc),
          [msg, out, frames, first_var, vars] {
            for (const Link& link : msg->links)
              pack_link(frames->face[link.face], link.kind, link.q0, link.q1, link.src, first_var,
                        vars, out + link.offset * static_cast<std::size_t>(vars));
          },
          TaskAttributes(skeleton));
      comm_.isend(buf.handle, buf.data.data(), m.values_per_var * vars * sizeof(double), m.peer,
                  tags_.tag(m.axis * kMaxChunks + m.chunk), comm_attr, "halo_send");
    }
    if (!options_.separate_buffers) submit_unpacks(axis);
  }

  std::vector<Access> acc;
  for (LocalFill& fill : local_) {
    acc.clear();
    bool any = false;
    bool reads_own = false;
    bool writes[3] = {false, false, false};
    for (const Link& link : fill.links) {
      const int axis = link.face / 2;
      if (axis < first_axis || axis > last_axis) continue;
      any = true;
      writes[axis] = true;
      add_sender_reads(acc, link.sender_slot, axis);
      reads_own = reads_own || link.kind == LinkKind::prolong;
    }
    if (reads_own) acc.push_back(read(store.interior(fill.receiver_slot, g)));
    if (!any) continue;
    for (int a = first_axis; a <= last_axis; ++a)
      if (writes[a]) acc.push_back(write(store.ghosts(fill.receiver_slot, g, a)));
    const LocalFill* f = &fill;
    runtime.submit(
        "halo_local", std::span<const Access>(acc),
        [f, frames, first_var, vars, first_axis, last_axis, axes = &options_.vector_axis] {
          for (const Link& link : f->links) {
            const int axis = link.face / 2;
            if (axis < first_axis || axis > last_axis) continue;
            copy_link(frames->face[link.face], link.kind, link.q0, link.q1, link.src, link.dst,
                      first_var, vars, *axes);
          }
        },
        TaskAttributes(fill.skeleton ? skeleton : Priority::normal));
  }

  if (options_.separate_buffers)
    for (int axis = first_axis; axis <= last_axis; ++axis) submit_unpacks(axis);
}

}  // namespace tessera
