#include "tessera/amr/mesh.hpp"

#include <algorithm>
#include <stdexcept>

namespace tessera {

namespace {

// Blocks per migration message: enough to amortize a message, few enough to pipeline.
constexpr std::int32_t kBlocksPerMessage = 4;
// Tags reserved for migration messages between one pair of ranks in one rebalance.
constexpr int kMigrationTags = 1 << 15;

// Child c of a block covers the half (c % 2, c / 2 % 2, c / 4) of its parent.
std::array<int, 3> child_offset(int c) {
  return {c % 2, (c / 2) % 2, c / 4};
}

// Each parent cell becomes 2x2x2 child cells holding an eighth of its value.
void split_into(const BlockShape& s, const BlockLayout& l, const double* parent, int child,
                double* out) {
  const auto off = child_offset(child);
  const int hx = s.cells[0] / 2, hy = s.cells[1] / 2, hz = s.cells[2] / 2;
  for (int v = 0; v < s.num_vars; ++v)
    for (int k = 0; k < hz; ++k)
      for (int j = 0; j < hy; ++j)
        for (int i = 0; i < hx; ++i) {
          const double value =
              parent[l.index(v, i + off[0] * hx, j + off[1] * hy, k + off[2] * hz)] / 8.0;
          for (int dk = 0; dk < 2; ++dk)
            for (int dj = 0; dj < 2; ++dj)
              for (int di = 0; di < 2; ++di)
                out[l.index(v, 2 * i + di, 2 * j + dj, 2 * k + dk)] = value;
        }
}

// Each parent cell is the sum of the 2x2x2 child cells it covers (x fastest, as miniAMR).
void merge_from(const BlockShape& s, const BlockLayout& l, const double* child_data, int child,
                double* parent) {
  const auto off = child_offset(child);
  const int hx = s.cells[0] / 2, hy = s.cells[1] / 2, hz = s.cells[2] / 2;
  for (int v = 0; v < s.num_vars; ++v)
    for (int k = 0; k < hz; ++k)
      for (int j = 0; j < hy; ++j)
        for (int i = 0; i < hx; ++i) {
          const auto c = [&](int a, int b, int d) {
            return child_data[l.index(v, 2 * i + a, 2 * j + b, 2 * k + d)];
          };
          parent[l.index(v, i + off[0] * hx, j + off[1] * hy, k + off[2] * hz)] =
              c(0, 0, 0) + c(1, 0, 0) + c(0, 1, 0) + c(1, 1, 0) + c(0, 0, 1) + c(1, 0, 1) +
              c(0, 1, 1) + c(1, 1, 1);
        }
}

// Limited-linear slope from the two one-sided differences (zero at an extremum).
double minmod(double left, double right) {
  if (left * right <= 0) return 0.0;
  return left > 0 ? std::min(left, right) : std::max(left, right);
}

// Child cells per parent cell along axis a: 2, or 1 along a flat axis (2-D meshes).
int refinement_factor(const BlockShape& s, int a) {
  return s.ghost[a] == 0 ? 1 : 2;
}

// Per-volume split of variables 0 .. vars - 1: each parent cell becomes 2x2x2 (2-D: 2x2)
// child cells at a quarter cell from its centre along every refined axis, on minmod slopes
// from the parent's neighbours (face ghosts at the block's edges).
void prolong_into(const BlockShape& s, const BlockLayout& l, int vars, const double* parent,
                  int child, double* out) {
  const auto off = child_offset(child);
  const int r[3] = {refinement_factor(s, 0), refinement_factor(s, 1), refinement_factor(s, 2)};
  const int h[3] = {s.cells[0] / r[0], s.cells[1] / r[1], s.cells[2] / r[2]};
  const std::ptrdiff_t st[3] = {1, l.stride_y(), l.stride_z()};
  for (int v = 0; v < vars; ++v)
    for (int k = 0; k < h[2]; ++k)
      for (int j = 0; j < h[1]; ++j)
        for (int i = 0; i < h[0]; ++i) {
          const std::ptrdiff_t pc =
              l.index(v, off[0] * h[0] + i, off[1] * h[1] + j, off[2] * h[2] + k);
          const double c = parent[pc];
          double d[3];
          for (int a = 0; a < 3; ++a)
            d[a] = r[a] == 1 ? 0.0 : minmod(c - parent[pc - st[a]], parent[pc + st[a]] - c);
          const auto shift = [&](int a, int sub) {
            return r[a] == 1 ? 0.0 : sub == 0 ? -0.25 : 0.25;
          };
          for (int dk = 0; dk < r[2]; ++dk)
            for (int dj = 0; dj < r[1]; ++dj)
              for (int di = 0; di < r[0]; ++di) {
                const double sx = shift(0, di), sy = shift(1, dj), sz = shift(2, dk);
                out[l.index(v, r[0] * i + di, r[1] * j + dj, r[2] * k + dk)] =
                    c + ((sx * d[0] + sy * d[1]) + sz * d[2]);
              }
        }
}

// Per-volume merge of variables 0 .. vars - 1: each parent cell is the mean of its 2x2x2
// child cells (2-D, flat z: 2x2).
void average_from(const BlockShape& s, const BlockLayout& l, int vars, const double* child_data,
                  int child, double* parent) {
  const auto off = child_offset(child);
  const bool flat_z = refinement_factor(s, 2) == 1;
  const int rz = flat_z ? 1 : 2;
  const int h[3] = {s.cells[0] / 2, s.cells[1] / 2, s.cells[2] / rz};
  for (int v = 0; v < vars; ++v)
    for (int k = 0; k < h[2]; ++k)
      for (int j = 0; j < h[1]; ++j)
        for (int i = 0; i < h[0]; ++i) {
          const auto c = [&](int a, int b, int d) {
            return child_data[l.index(v, 2 * i + a, 2 * j + b, rz * k + d)];
          };
          const double mean = flat_z
                                  ? ((c(0, 0, 0) + c(1, 0, 0)) + (c(0, 1, 0) + c(1, 1, 0))) * 0.25
                                  : (((c(0, 0, 0) + c(1, 0, 0)) + (c(0, 1, 0) + c(1, 1, 0))) +
                                     ((c(0, 0, 1) + c(1, 0, 1)) + (c(0, 1, 1) + c(1, 1, 1)))) *
                                        0.125;
          parent[l.index(v, off[0] * h[0] + i, off[1] * h[1] + j, off[2] * h[2] + k)] = mean;
        }
}

// The part of its parent a child covers: its offset in halves, the child cells per parent
// cell and the parent cells it covers, per axis.
struct ChildPart {
  std::array<int, 3> off, r, h;
};

ChildPart child_part(const BlockShape& s, int child) {
  ChildPart p{child_offset(child), {}, {}};
  for (int a = 0; a < 3; ++a) {
    p.r[a] = refinement_factor(s, a);
    p.h[a] = s.cells[a] / p.r[a];
  }
  return p;
}

// Custom split (CellTransfer) of groups 0 .. groups - 1: child cell (i, j, k) is child
// (i % 2, j % 2, k % 2) (bit per refined axis) of the parent cell it lies in.
void transfer_split(const BlockShape& s, const BlockLayout& l, int groups,
                    const CellTransfer& transfer, const double* parent, int child, double* out) {
  const auto [off, r, h] = child_part(s, child);
  const std::ptrdiff_t sv = l.stride_var();
  std::vector<double> coarse(static_cast<std::size_t>(s.group_size)), fine(coarse.size());
  for (int g = 0; g < groups; ++g) {
    const int first = s.group_first(g), vars = s.group_vars(g);
    for (int k = 0; k < s.cells[2]; ++k)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int i = 0; i < s.cells[0]; ++i) {
          const double* p = parent + l.index(first, off[0] * h[0] + i / r[0],
                                             off[1] * h[1] + j / r[1], off[2] * h[2] + k / r[2]);
          for (int v = 0; v < vars; ++v) coarse[static_cast<std::size_t>(v)] = p[v * sv];
          transfer.child_from_parent(coarse.data(), (i % r[0]) | (j % r[1]) << 1 | (k % r[2]) << 2,
                                     fine.data());
          double* c = out + l.index(first, i, j, k);
          for (int v = 0; v < vars; ++v) c[v * sv] = fine[static_cast<std::size_t>(v)];
        }
  }
}

// Custom merge of groups 0 .. groups - 1: each parent cell of child `child`'s part is the
// parent of its 2x2x2 (2-D: 2x2) child cells, added in bit order.
void transfer_merge(const BlockShape& s, const BlockLayout& l, int groups,
                    const CellTransfer& transfer, const double* child_data, int child,
                    double* parent) {
  const auto [off, r, h] = child_part(s, child);
  const std::ptrdiff_t sv = l.stride_var();
  std::vector<double> coarse(static_cast<std::size_t>(s.group_size)), fine(coarse.size());
  for (int g = 0; g < groups; ++g) {
    const int first = s.group_first(g), vars = s.group_vars(g);
    for (int k = 0; k < h[2]; ++k)
      for (int j = 0; j < h[1]; ++j)
        for (int i = 0; i < h[0]; ++i) {
          std::fill(coarse.begin(), coarse.end(), 0.0);
          for (int bits = 0; bits < 8; ++bits) {
            const int b[3] = {bits & 1, (bits >> 1) & 1, bits >> 2};
            if ((b[0] == 1 && r[0] == 1) || (b[1] == 1 && r[1] == 1) || (b[2] == 1 && r[2] == 1))
              continue;
            const double* c =
                child_data + l.index(first, r[0] * i + b[0], r[1] * j + b[1], r[2] * k + b[2]);
            for (int v = 0; v < vars; ++v) fine[static_cast<std::size_t>(v)] = c[v * sv];
            transfer.add_child_to_parent(fine.data(), bits, coarse.data());
          }
          double* p =
              parent + l.index(first, off[0] * h[0] + i, off[1] * h[1] + j, off[2] * h[2] + k);
          for (int v = 0; v < vars; ++v) p[v * sv] = coarse[static_cast<std::size_t>(v)];
        }
  }
}

// Interior cells of variables 0 .. vars - 1, contiguous (var, k, j, i order: the layout's).
void pack_interior(const BlockShape& s, const BlockLayout& l, int vars, const double* block,
                   double* out) {
  for (int v = 0; v < vars; ++v)
    for (int k = 0; k < s.cells[2]; ++k)
      for (int j = 0; j < s.cells[1]; ++j) {
        const double* row = block + l.index(v, 0, j, k);
        out = std::copy(row, row + s.cells[0], out);
      }
}

void unpack_interior(const BlockShape& s, const BlockLayout& l, int vars, const double* in,
                     double* block) {
  for (int v = 0; v < vars; ++v)
    for (int k = 0; k < s.cells[2]; ++k)
      for (int j = 0; j < s.cells[1]; ++j) {
        std::copy(in, in + s.cells[0], block + l.index(v, 0, j, k));
        in += s.cells[0];
      }
}

}  // namespace

AmrMesh::AmrMesh(Comm& comm, Exec& exec, AmrMeshOptions options)
    : comm_(comm),
      exec_(exec),
      halo_options_(options.halo),
      forest_(options.leaves.empty()
                  ? std::make_unique<Forest>(comm.mpi(), options.root_blocks, options.periodic,
                                             options.dim)
                  : std::make_unique<Forest>(comm.mpi(), options.root_blocks, options.leaves,
                                             options.partition, options.periodic, options.dim)),
      store_(comm.runtime(), options.shape),
      halo_tags_(comm.allocate_tags("amr halo", AmrHalo::tags_needed())),
      migration_tags_(comm.allocate_tags("amr migration", kMigrationTags)),
      flux_tags_(options.corrected_vars > 0
                     ? comm.allocate_tags("amr flux correction", FluxCorrection::tags_needed())
                     : TagSpace()),
      halo_buffers_(comm.runtime(), "amr.halo.buffer"),
      migration_handles_(comm.runtime(), "amr.migration.buffer"),
      flux_handles_(comm.runtime(), "amr.flux"),
      data_groups_(options.data_groups > 0 ? options.data_groups : options.shape.groups()),
      corrected_vars_(options.corrected_vars) {
  if (options.dim == 2 && (options.shape.cells[2] != 1 || options.shape.ghost[2] != 0))
    throw std::invalid_argument(
        "AmrMesh: a 2-D mesh needs blocks one cell thick in z, no z ghosts");
  slots_.resize(static_cast<std::size_t>(forest_->local_count()));
  for (auto& slot : slots_) slot = store_.acquire();
  rebuild_halo();
}

AmrMesh::~AmrMesh() = default;

void AmrMesh::rebuild_halo() {
  halo_ = std::make_unique<AmrHalo>(*forest_, store_, slots_, comm_, halo_tags_, halo_buffers_,
                                    halo_options_);
  if (corrected_vars_ > 0)
    flux_ = std::make_unique<FluxCorrection>(
        *forest_, store_, slots_, comm_, flux_tags_, flux_handles_, corrected_vars_,
        halo_options_.level_jumps == LevelJumpRule::custom ? halo_options_.transfer : nullptr);
}

AdaptCounts AmrMesh::adapt(std::span<const std::int8_t> marks) {
  const CellTransfer* transfer =
      halo_options_.level_jumps == LevelJumpRule::custom ? halo_options_.transfer : nullptr;
  const bool per_volume = halo_options_.level_jumps == LevelJumpRule::per_volume;
  if (transfer == nullptr && !per_volume && store_.shape().wide_ghosts())
    throw std::logic_error("AmrMesh::adapt: needs one ghost layer per axis (BlockShape::ghost)");
  if (transfer == nullptr && !per_volume && forest_->dim() == 2)
    throw std::logic_error("AmrMesh::adapt: per-cell amounts (miniAMR) split 3-D blocks only");
  if (per_volume || transfer != nullptr)
    for (int a = 0; a < forest_->dim(); ++a)
      if (store_.shape().ghost[a] == 0)
        throw std::logic_error("AmrMesh::adapt: per-volume split needs ghosts on every axis");
  exec_.barrier();
  migration_buffers_.clear();
  const AdaptResult result = forest_->adapt(marks);
  Runtime& runtime = comm_.runtime();
  const BlockShape& shape = store_.shape();
  const BlockLayout& layout = store_.layout();
  const int groups = data_groups_;
  const int vars = std::min(shape.num_vars, groups * shape.group_size);
  const int kids = forest_->children();
  std::vector<std::int32_t> slots(result.sources.size());
  std::vector<std::int32_t> released;
  std::vector<Access> acc;
  for (std::size_t i = 0; i < result.sources.size();) {
    const AdaptSource& src = result.sources[i];
    const std::int32_t old_slot = slots_[static_cast<std::size_t>(src.old_index)];
    if (src.kind == AdaptSource::Kind::kept) {
      slots[i++] = old_slot;
      continue;
    }
    acc.clear();
    if (src.kind == AdaptSource::Kind::refined) {
      // The children follow each other in the new order.
      std::array<double*, 8> children{};
      for (int c = 0; c < kids; ++c) {
        slots[i + static_cast<std::size_t>(c)] = store_.acquire();
        children[static_cast<std::size_t>(c)] = store_.data(slots[i + static_cast<std::size_t>(c)]);
      }
      for (int g = 0; g < groups; ++g) {
        acc.push_back(read(store_.interior(old_slot, g)));
        if (per_volume)
          for (int a = 0; a < 3; ++a) acc.push_back(read(store_.ghosts(old_slot, g, a)));
        for (int c = 0; c < kids; ++c)
          acc.push_back(write(store_.interior(slots[i + static_cast<std::size_t>(c)], g)));
      }
      const double* parent = store_.data(old_slot);
      runtime.submit(
          "amr_split", std::span<const Access>(acc),
          [&shape, &layout, parent, children, per_volume, vars, kids, transfer, groups] {
            for (int c = 0; c < kids; ++c) {
              if (transfer != nullptr)
                transfer_split(shape, layout, groups, *transfer, parent, c,
                               children[static_cast<std::size_t>(c)]);
              else if (per_volume)
                prolong_into(shape, layout, vars, parent, c, children[static_cast<std::size_t>(c)]);
              else
                split_into(shape, layout, parent, c, children[static_cast<std::size_t>(c)]);
            }
          });
      released.push_back(old_slot);
      i += static_cast<std::size_t>(kids);
    } else {
      const std::int32_t slot = store_.acquire();
      slots[i] = slot;
      std::array<const double*, 8> children{};
      for (int c = 0; c < kids; ++c) {
        const std::int32_t child = slots_[static_cast<std::size_t>(src.old_index + c)];
        children[static_cast<std::size_t>(c)] = store_.data(child);
        released.push_back(child);
      }
      for (int g = 0; g < groups; ++g) {
        acc.push_back(write(store_.interior(slot, g)));
        for (int c = 0; c < kids; ++c)
          acc.push_back(
              read(store_.interior(slots_[static_cast<std::size_t>(src.old_index + c)], g)));
      }
      double* parent = store_.data(slot);
      runtime.submit(
          "amr_merge", std::span<const Access>(acc),
          [&shape, &layout, parent, children, per_volume, vars, kids, transfer, groups] {
            for (int c = 0; c < kids; ++c) {
              if (transfer != nullptr)
                transfer_merge(shape, layout, groups, *transfer,
                               children[static_cast<std::size_t>(c)], c, parent);
              else if (per_volume)
                average_from(shape, layout, vars, children[static_cast<std::size_t>(c)], c, parent);
              else
                merge_from(shape, layout, children[static_cast<std::size_t>(c)], c, parent);
            }
          });
      ++i;
    }
  }
  for (std::int32_t slot : released) store_.release(slot);
  slots_ = std::move(slots);
  rebuild_halo();
  return {result.refined, result.merged, result.sources};
}

std::int64_t AmrMesh::rebalance() {
  exec_.barrier();
  const PartitionResult moves = forest_->partition();
  migrate(moves);
  return moves.global_moved;
}

std::int64_t AmrMesh::rebalance(std::span<const std::int64_t> counts) {
  exec_.barrier();
  const PartitionResult moves = forest_->partition_given(counts);
  migrate(moves);
  return moves.global_moved;
}

std::int64_t AmrMesh::gather_families() {
  exec_.barrier();
  const PartitionResult moves = forest_->gather_families();
  if (moves.global_moved > 0) migrate(moves);
  return moves.global_moved;
}

void AmrMesh::migrate(const PartitionResult& moves) {
  migration_buffers_.clear();
  migration_handles_.reset();
  Runtime& runtime = comm_.runtime();
  const BlockShape& shape = store_.shape();
  const BlockLayout& layout = store_.layout();
  const int groups = data_groups_;
  const int vars = std::min(shape.num_vars, groups * shape.group_size);
  const std::size_t block_values = shape.interior_cells() * static_cast<std::size_t>(vars);
  const TaskAttributes comm_attr = Comm::comm_attributes(TaskAttributes(Priority::normal));

  std::vector<std::int32_t> slots(static_cast<std::size_t>(forest_->local_count()), -1);
  for (std::int32_t k = 0; k < moves.kept_count; ++k)
    slots[static_cast<std::size_t>(moves.kept_new_first + k)] =
        slots_[static_cast<std::size_t>(moves.kept_old_first + k)];

  // Messages of up to kBlocksPerMessage consecutive blocks; message m of a transfer uses
  // tag m (the sender and the receiver cut the range the same way).
  const auto chunks_of = [](const BlockTransfer& t) {
    return (t.count + kBlocksPerMessage - 1) / kBlocksPerMessage;
  };
  std::vector<Access> acc;
  std::vector<std::int32_t> released;
  // Sends first: under bsp every task runs inline, and a receive waits for its message.
  for (const BlockTransfer& t : moves.sends) {
    for (std::int32_t m = 0; m < chunks_of(t); ++m) {
      const std::int32_t first = t.first + m * kBlocksPerMessage;
      const std::int32_t count = std::min(kBlocksPerMessage, t.first + t.count - first);
      auto& buffer =
          migration_buffers_.emplace_back(block_values * static_cast<std::size_t>(count));
      const Handle h = migration_handles_.next();
      acc.assign({write(h)});
      std::vector<const double*> blocks;
      for (std::int32_t b = first; b < first + count; ++b) {
        const std::int32_t slot = slots_[static_cast<std::size_t>(b)];
        blocks.push_back(store_.data(slot));
        for (int g = 0; g < groups; ++g) acc.push_back(read(store_.interior(slot, g)));
        released.push_back(slot);
      }
      double* out = buffer.data();
      runtime.submit("amr_migrate_pack", std::span<const Access>(acc),
                     [&shape, &layout, out, blocks = std::move(blocks), block_values, vars] {
                       for (std::size_t b = 0; b < blocks.size(); ++b)
                         pack_interior(shape, layout, vars, blocks[b], out + b * block_values);
                     });
      comm_.isend(h, buffer.data(), buffer.size() * sizeof(double), t.peer, migration_tags_.tag(m),
                  comm_attr, "amr_migrate_send");
    }
  }
  for (const BlockTransfer& t : moves.receives) {
    for (std::int32_t m = 0; m < chunks_of(t); ++m) {
      const std::int32_t first = t.first + m * kBlocksPerMessage;
      const std::int32_t count = std::min(kBlocksPerMessage, t.first + t.count - first);
      auto& buffer =
          migration_buffers_.emplace_back(block_values * static_cast<std::size_t>(count));
      const Handle h = migration_handles_.next();
      comm_.irecv(h, buffer.data(), buffer.size() * sizeof(double), t.peer, migration_tags_.tag(m),
                  comm_attr, "amr_migrate_recv");
      acc.assign({read(h)});
      std::vector<double*> blocks;
      for (std::int32_t b = first; b < first + count; ++b) {
        const std::int32_t slot = store_.acquire();
        slots[static_cast<std::size_t>(b)] = slot;
        blocks.push_back(store_.data(slot));
        for (int g = 0; g < groups; ++g) acc.push_back(write(store_.interior(slot, g)));
      }
      const double* in = buffer.data();
      runtime.submit("amr_migrate_unpack", std::span<const Access>(acc),
                     [&shape, &layout, in, blocks = std::move(blocks), block_values, vars] {
                       for (std::size_t b = 0; b < blocks.size(); ++b)
                         unpack_interior(shape, layout, vars, in + b * block_values, blocks[b]);
                     });
    }
  }
  for (std::int32_t slot : released) store_.release(slot);
  slots_ = std::move(slots);
  rebuild_halo();
}

}  // namespace tessera
