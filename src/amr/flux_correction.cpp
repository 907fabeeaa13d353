// Flux correction plan and tasks. A Link carries the 2x2 means of one fine block's fluxes
// over one quarter of a coarse block's face; the fine side computes them (pack_means) both
// for messages and for on-rank coarse blocks, so a coarse block gets the same bits wherever
// its fine neighbours live. A coarse block applies its quarters in a fixed order (face, then
// quarter), so a cell next to two corrected faces sums its corrections in the same order.
#include "tessera/amr/flux_correction.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace tessera {

namespace {

void tangential_axes(int axis, int& t0, int& t1) {
  t0 = axis == 0 ? 1 : 0;
  t1 = axis == 2 ? 1 : 2;
}

std::size_t quarter_values(const FluxRegister& r, int face, int vars) {
  const int a = face / 2;
  return static_cast<std::size_t>(vars) * static_cast<std::size_t>(r.n0[a] / r.f0[a]) *
         static_cast<std::size_t>(r.n1[a] / r.f1[a]);
}

// Means over the 2x2 (2-D: 2) fine face cells under each coarse face cell of the fine
// block's fluxes on its face fine_face.
void pack_means(const FluxRegister& r, int vars, const double* fine, int fine_face, double* out) {
  const int a = fine_face / 2;
  const int f0 = r.f0[a], f1 = r.f1[a];
  const int h0 = r.n0[a] / f0, h1 = r.n1[a] / f1;
  for (int v = 0; v < vars; ++v)
    for (int u = 0; u < h0; ++u)
      for (int w = 0; w < h1; ++w) {
        const double* p = fine + r.index(fine_face, v, f0 * u, f1 * w);
        const double* q = p + r.n1[a];
        if (f1 == 1) {
          *out++ = f0 == 1 ? p[0] : (p[0] + q[0]) * 0.5;
        } else if (f0 == 1) {
          *out++ = (p[0] + p[1]) * 0.5;
        } else {
          *out++ = ((p[0] + p[1]) + (q[0] + q[1])) * 0.25;
        }
      }
}

// Replaces the coarse block's flux on quarter (q0, q1) of `face` by `means`.
void apply_means(const BlockLayout& l, const FluxRegister& r, int first_var, int vars,
                 double* block, const double* own, int face, int q0, int q1, double coefficient,
                 const double* means) {
  const int axis = face / 2;
  int t0, t1;
  tangential_axes(axis, t0, t1);
  const int h0 = r.n0[axis] / r.f0[axis], h1 = r.n1[axis] / r.f1[axis];
  const bool high = face % 2 == 1;
  // Upper face: U -= c (F_new - F_old); lower face: U += c (F_new - F_old).
  const double signed_c = high ? coefficient : -coefficient;
  int cell[3];
  cell[axis] = high ? l.cells()[axis] - 1 : 0;
  for (int v = 0; v < vars; ++v)
    for (int u = 0; u < h0; ++u)
      for (int w = 0; w < h1; ++w) {
        const int cu = q0 * h0 + u, cw = q1 * h1 + w;
        cell[t0] = cu;
        cell[t1] = cw;
        const double old_flux = own[r.index(face, v, cu, cw)];
        double& value = block[l.index(first_var + v, cell[0], cell[1], cell[2])];
        value -= signed_c * (*means++ - old_flux);
      }
}

// With a CellTransfer: per coarse face cell, the transfer's coarse flux from the r0 x r1
// fine face cells it covers (fine faces in bit order), in pack_means' layout.
void pack_transferred(const FluxRegister& r, int vars, const CellTransfer& transfer,
                      const double* fine, int fine_face, double* out) {
  const int a = fine_face / 2;
  const int f0 = r.f0[a], f1 = r.f1[a];
  const int h0 = r.n0[a] / f0, h1 = r.n1[a] / f1;
  const auto cells = static_cast<std::size_t>(h0) * static_cast<std::size_t>(h1);
  thread_local std::vector<double> coarse, one;
  coarse.resize(static_cast<std::size_t>(vars));
  one.resize(static_cast<std::size_t>(vars));
  for (int u = 0; u < h0; ++u)
    for (int w = 0; w < h1; ++w) {
      std::fill(coarse.begin(), coarse.end(), 0.0);
      for (int b1 = 0; b1 < f1; ++b1)
        for (int b0 = 0; b0 < f0; ++b0) {
          for (int v = 0; v < vars; ++v)
            one[static_cast<std::size_t>(v)] =
                fine[r.index(fine_face, v, f0 * u + b0, f1 * w + b1)];
          transfer.add_fine_face_flux(a, b0 | b1 << 1, one.data(), coarse.data());
        }
      const std::size_t c =
          static_cast<std::size_t>(u) * static_cast<std::size_t>(h1) + static_cast<std::size_t>(w);
      for (int v = 0; v < vars; ++v)
        out[static_cast<std::size_t>(v) * cells + c] = coarse[static_cast<std::size_t>(v)];
    }
}

// With a CellTransfer: the transfer corrects each coarse cell on quarter (q0, q1) of `face`
// for the change of its flux to `means`.
void apply_transferred(const BlockLayout& l, const FluxRegister& r, const CellTransfer& transfer,
                       int first_var, int cell_vars, int vars, double* block, const double* own,
                       int face, int q0, int q1, double coefficient, const double* means) {
  const int axis = face / 2;
  int t0, t1;
  tangential_axes(axis, t0, t1);
  const int h0 = r.n0[axis] / r.f0[axis], h1 = r.n1[axis] / r.f1[axis];
  const auto cells = static_cast<std::size_t>(h0) * static_cast<std::size_t>(h1);
  const std::ptrdiff_t sv = l.stride_var();
  thread_local std::vector<double> change, values;
  change.resize(static_cast<std::size_t>(vars));
  values.resize(static_cast<std::size_t>(cell_vars));
  int cell[3];
  cell[axis] = face % 2 == 1 ? l.cells()[axis] - 1 : 0;
  for (int u = 0; u < h0; ++u)
    for (int w = 0; w < h1; ++w) {
      const int cu = q0 * h0 + u, cw = q1 * h1 + w;
      cell[t0] = cu;
      cell[t1] = cw;
      const std::size_t c =
          static_cast<std::size_t>(u) * static_cast<std::size_t>(h1) + static_cast<std::size_t>(w);
      for (int v = 0; v < vars; ++v)
        change[static_cast<std::size_t>(v)] =
            means[static_cast<std::size_t>(v) * cells + c] - own[r.index(face, v, cu, cw)];
      double* p = block + l.index(first_var, cell[0], cell[1], cell[2]);
      for (int v = 0; v < cell_vars; ++v) values[static_cast<std::size_t>(v)] = p[v * sv];
      transfer.correct_cell(axis, face % 2, change.data(), coefficient, values.data());
      for (int v = 0; v < cell_vars; ++v) p[v * sv] = values[static_cast<std::size_t>(v)];
    }
}

}  // namespace

FluxRegister::FluxRegister(const BlockShape& shape, int vars) {
  std::size_t total = 0;
  for (int f = 0; f < kBlockFaces; ++f) {
    const int a = f / 2;
    int t0, t1;
    tangential_axes(a, t0, t1);
    n0[a] = shape.cells[t0];
    n1[a] = shape.cells[t1];
    f0[a] = shape.ghost[t0] == 0 ? 1 : 2;
    f1[a] = shape.ghost[t1] == 0 ? 1 : 2;
    offset[static_cast<std::size_t>(f)] = total;
    total += static_cast<std::size_t>(vars) * static_cast<std::size_t>(n0[a]) *
             static_cast<std::size_t>(n1[a]);
  }
  offset[kBlockFaces] = total;
}

struct FluxCorrection::Link {
  const double* fine = nullptr;  // the fine block's register (sender side)
  Handle fine_handle;
  std::int8_t face = 0;  // the coarse block's face
  std::int8_t q0 = 0, q1 = 0;
  std::int64_t fine_gid = 0, coarse_gid = 0;
  std::int32_t coarse_local = -1;  // receiver side
  std::size_t offset = 0;          // doubles before this link in its message
};

struct FluxCorrection::Message {
  int peer = 0;
  std::vector<Link> links;
  std::vector<double> data;
  Handle handle;
};

struct FluxCorrection::Coarse {
  struct Source {
    std::int8_t face = 0, q0 = 0, q1 = 0;
    const double* fine = nullptr;   // an on-rank fine block's register
    const double* means = nullptr;  // or its means in a receive buffer
    Handle handle;                  // what the source is read from
  };
  std::int32_t index = 0;
  std::int32_t slot = 0;
  int level = 0;
  bool skeleton = false;
  std::vector<Source> sources;
};

FluxCorrection::FluxCorrection(const Forest& forest, BlockStore& store,
                               std::span<const std::int32_t> slots, Comm& comm,
                               const TagSpace& tags, HandlePool& handles, int vars,
                               const CellTransfer* transfer)
    : store_(store),
      comm_(comm),
      tags_(tags),
      vars_(vars),
      transfer_(transfer),
      layout_(store.shape(), vars) {
  handles.reset();
  const std::int32_t n = forest.local_count();
  registers_.resize(static_cast<std::size_t>(n));
  register_handles_.resize(static_cast<std::size_t>(n));
  skeleton_.assign(static_cast<std::size_t>(n), 0);
  const auto has_jump = [&](std::int32_t b) {
    for (int f = 0; f < kBlockFaces; ++f) {
      const FaceKind k = forest.neighbors(b, f).kind;
      if ((k == FaceKind::coarser || k == FaceKind::finer) && store.shape().ghost[f / 2] > 0)
        return true;
    }
    return false;
  };
  for (std::int32_t b = 0; b < n; ++b)
    if (has_jump(b)) {
      registers_[static_cast<std::size_t>(b)].assign(layout_.offset[kBlockFaces], 0.0);
      register_handles_[static_cast<std::size_t>(b)] = handles.next();
    }

  std::map<int, std::vector<Link>> send_links, recv_links;
  for (std::int32_t b = 0; b < n; ++b) {
    const BlockPlace& me = forest.local(b);
    const std::int64_t my_gid = forest.global_index(BlockRef{false, b});
    Coarse coarse;
    coarse.index = b;
    coarse.slot = slots[static_cast<std::size_t>(b)];
    coarse.level = me.level;
    for (int f = 0; f < kBlockFaces; ++f) {
      if (store.shape().ghost[f / 2] == 0) continue;  // flat axis
      const FaceNeighbors& nb = forest.neighbors(b, f);
      if (nb.kind == FaceKind::finer) {
        for (int h = 0; h < nb.count(); ++h) {
          const BlockRef other = nb.blocks[static_cast<std::size_t>(h)];
          Coarse::Source src;
          src.face = static_cast<std::int8_t>(f);
          src.q0 = static_cast<std::int8_t>(h % 2);
          src.q1 = static_cast<std::int8_t>(h / 2);
          if (!other.ghost) {
            src.fine = registers_[static_cast<std::size_t>(other.index)].data();
            src.handle = register_handles_[static_cast<std::size_t>(other.index)];
          } else {
            Link in;
            in.face = src.face;
            in.q0 = src.q0;
            in.q1 = src.q1;
            in.fine_gid = forest.global_index(other);
            in.coarse_gid = my_gid;
            in.coarse_local = b;
            recv_links[forest.ghost_owner(other.index)].push_back(in);
            coarse.skeleton = true;
          }
          coarse.sources.push_back(src);
        }
      } else if (nb.kind == FaceKind::coarser && nb.blocks[0].ghost) {
        const BlockRef other = nb.blocks[0];
        const BlockPlace& them = forest.ghost(other.index);
        int t0, t1;
        tangential_axes(f / 2, t0, t1);
        Link out;
        out.fine = registers_[static_cast<std::size_t>(b)].data();
        out.fine_handle = register_handles_[static_cast<std::size_t>(b)];
        out.face = static_cast<std::int8_t>(f ^ 1);
        out.q0 = static_cast<std::int8_t>((me.origin[t0] - them.origin[t0]) / me.length());
        out.q1 = static_cast<std::int8_t>((me.origin[t1] - them.origin[t1]) / me.length());
        out.fine_gid = my_gid;
        out.coarse_gid = forest.global_index(other);
        send_links[forest.ghost_owner(other.index)].push_back(out);
        skeleton_[static_cast<std::size_t>(b)] = 1;
      }
    }
    if (!coarse.sources.empty()) coarse_.push_back(std::move(coarse));
  }

  const auto make = [&](std::map<int, std::vector<Link>>& groups, std::vector<Message>& out) {
    for (auto& [peer, links] : groups) {
      std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) {
        return std::tie(a.fine_gid, a.coarse_gid, a.face) <
               std::tie(b.fine_gid, b.coarse_gid, b.face);
      });
      Message m;
      m.peer = peer;
      std::size_t size = 0;
      for (Link& link : links) {
        link.offset = size;
        size += quarter_values(layout_, link.face, vars_);
      }
      m.links = std::move(links);
      m.data.assign(size, 0.0);
      m.handle = handles.next();
      out.push_back(std::move(m));
    }
  };
  make(send_links, sends_);
  make(recv_links, receives_);

  // Remote sources read their means from the receive buffers.
  std::map<std::int32_t, std::size_t> coarse_of;
  for (std::size_t c = 0; c < coarse_.size(); ++c) coarse_of[coarse_[c].index] = c;
  for (Message& m : receives_)
    for (const Link& link : m.links) {
      Coarse& c = coarse_[coarse_of.at(link.coarse_local)];
      for (Coarse::Source& src : c.sources)
        if (src.face == link.face && src.q0 == link.q0 && src.q1 == link.q1 &&
            src.fine == nullptr) {
          src.means = m.data.data() + link.offset;
          src.handle = m.handle;
        }
    }
}

FluxCorrection::~FluxCorrection() = default;

void FluxCorrection::submit(int g, int tag, const double* step, double factor,
                            std::array<double, 3> dx0, Exec& exec) {
  Runtime& runtime = comm_.runtime();
  const Priority skeleton = exec.skeleton_priority();
  const TaskAttributes comm_attr = Comm::comm_attributes(TaskAttributes(skeleton));
  const FluxRegister* layout = &layout_;
  const int vars = vars_;
  const CellTransfer* transfer = transfer_;
  // Fine fluxes over one coarse face cell: means, or the transfer's coarse flux.
  const auto pack = [transfer](const FluxRegister& r, int v, const double* fine, int fine_face,
                               double* out) {
    if (transfer != nullptr) return pack_transferred(r, v, *transfer, fine, fine_face, out);
    pack_means(r, v, fine, fine_face, out);
  };
  for (Message& m : receives_)
    comm_.irecv(m.handle, m.data.data(), m.data.size() * sizeof(double), m.peer, tags_.tag(tag),
                comm_attr, "flux_recv");
  std::vector<Access> acc;
  for (Message& m : sends_) {
    acc.assign({write(m.handle)});
    for (const Link& link : m.links) acc.push_back(read(link.fine_handle));
    const Message* msg = &m;
    double* out = m.data.data();
    runtime.submit(
        "flux_pack", std::span<const Access>(acc),
        [msg, out, layout, vars, pack] {
          for (const Link& link : msg->links)
            pack(*layout, vars, link.fine, link.face ^ 1, out + link.offset);
        },
        TaskAttributes(skeleton));
    comm_.isend(m.handle, m.data.data(), m.data.size() * sizeof(double), m.peer, tags_.tag(tag),
                comm_attr, "flux_send");
  }
  const BlockLayout* block_layout = &store_.layout();
  const int first_var = store_.shape().group_first(g);
  const int cell_vars = store_.shape().group_vars(g);
  for (Coarse& c : coarse_) {
    acc.assign({readwrite(store_.interior(c.slot, g)),
                read(register_handles_[static_cast<std::size_t>(c.index)])});
    for (const Coarse::Source& src : c.sources) acc.push_back(read(src.handle));
    const Coarse* cp = &c;
    double* block = store_.data(c.slot);
    const double* own = registers_[static_cast<std::size_t>(c.index)].data();
    std::array<double, 3> dx{};
    for (int a = 0; a < 3; ++a) dx[a] = std::ldexp(dx0[a], -c.level);
    runtime.submit(
        "flux_correct", std::span<const Access>(acc),
        [cp, block_layout, layout, vars, first_var, cell_vars, block, own, step, factor, dx, pack,
         transfer] {
          if (*step == 0) return;  // a cancelled cycle (AmrDriver): nothing changes
          thread_local std::vector<double> means;
          for (const Coarse::Source& src : cp->sources) {
            const double* m = src.means;
            if (src.fine != nullptr) {
              means.resize(quarter_values(*layout, src.face, vars));
              pack(*layout, vars, src.fine, src.face ^ 1, means.data());
              m = means.data();
            }
            const double coefficient = factor * *step / dx[src.face / 2];
            if (transfer != nullptr)
              apply_transferred(*block_layout, *layout, *transfer, first_var, cell_vars, vars,
                                block, own, src.face, src.q0, src.q1, coefficient, m);
            else
              apply_means(*block_layout, *layout, first_var, vars, block, own, src.face, src.q0,
                          src.q1, coefficient, m);
          }
        },
        TaskAttributes(c.skeleton ? skeleton : Priority::normal));
  }
}

}  // namespace tessera
