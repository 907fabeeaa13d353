#include "tessera/mesh/level_transfer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

namespace tessera {

namespace {

// Restriction and prolongation messages of the pair whose fine block sits at position
// `child` (0..7) under its coarse block: a coarse block's children have distinct tags, and
// pairs sharing a tag between two ranks are posted in the same (fine block id) order on
// both sides, so MPI's non-overtaking rule matches them.
constexpr int kChildren = 8;

Int3 ratio(Int3 fine, Int3 coarse, const char* what) {
  Int3 r;
  for (int a = 0; a < 3; ++a) {
    if (coarse[a] < 1 || fine[a] % coarse[a] != 0 || fine[a] / coarse[a] > 2) {
      throw std::invalid_argument(fmt::format(
          "level transfer: the coarse level's {} ({} {} {}) must equal or halve the fine "
          "level's ({} {} {}) on every axis",
          what, coarse.x, coarse.y, coarse.z, fine.x, fine.y, fine.z));
    }
    r[a] = fine[a] / coarse[a];
  }
  return r;
}

}  // namespace

std::vector<LevelPair> local_level_pairs(const UniformMesh& fine, const UniformMesh& coarse) {
  const Int3 block_ratio = ratio(fine.blocks(), coarse.blocks(), "blocks");
  const int me = fine.rank();
  const auto pair_of = [&](Int3 fc) {
    LevelPair pair;
    Int3 cc;
    for (int a = 0; a < 3; ++a) {
      cc[a] = fc[a] / block_ratio[a];
      pair.child |= (fc[a] % block_ratio[a]) << a;
    }
    pair.fine_id = fine.block_id(fc);
    pair.coarse_id = coarse.block_id(cc);
    pair.fine_rank = fine.owner(pair.fine_id);
    pair.coarse_rank = coarse.owner(pair.coarse_id);
    return pair;
  };
  std::vector<LevelPair> pairs;
  for (const MeshBlock& block : fine.local_blocks()) pairs.push_back(pair_of(block.coord));
  // Children of this rank's coarse blocks whose fine block lives elsewhere (the others
  // were added above).
  for (const MeshBlock& block : coarse.local_blocks()) {
    for (int z = 0; z < block_ratio.z; ++z)
      for (int y = 0; y < block_ratio.y; ++y)
        for (int x = 0; x < block_ratio.x; ++x) {
          const Int3 fc{block.coord.x * block_ratio.x + x, block.coord.y * block_ratio.y + y,
                        block.coord.z * block_ratio.z + z};
          LevelPair pair = pair_of(fc);
          if (pair.fine_rank != me) pairs.push_back(pair);
        }
  }
  // Messages of pairs sharing a tag between two ranks match in posting order: both sides
  // post them in fine block id order.
  std::sort(pairs.begin(), pairs.end(),
            [](const LevelPair& a, const LevelPair& b) { return a.fine_id < b.fine_id; });
  return pairs;
}

struct LevelTransfer::Pair {
  GlobalBlockId fine_id = kNoBlock;
  int fine_rank = -1;
  int coarse_rank = -1;
  LocalBlockIndex fine_local = kNotLocal;
  LocalBlockIndex coarse_local = kNotLocal;
  int child = 0;
  Box coarse_box;  // coarse cells under the fine block, in the coarse block's coordinates
  Box grown_box;   // coarse_box and the coarse ghosts a prolongation reads
  std::vector<double> restrict_buffer;
  std::vector<double> prolong_buffer;
  Handle restrict_handle;
  Handle prolong_handle;
  bool remote() const { return fine_rank != coarse_rank; }
};

LevelTransfer::LevelTransfer(const UniformMesh& fine, const UniformMesh& coarse, int coarse_ghost,
                             Comm& comm, Exec& exec, const std::string& name)
    : fine_(fine), coarse_(coarse), comm_(comm), exec_(exec) {
  const Int3 cell_ratio = ratio(fine.cells(), coarse.cells(), "cells");
  for (int a = 0; a < 3; ++a) {
    if (cell_ratio[a] != (fine.is_flat(a) ? 1 : 2)) {
      throw std::invalid_argument(fmt::format(
          "level transfer: the coarse level must have half the fine level's {} cells on axis {}",
          fine.cells()[a], "xyz"[a]));
    }
  }
  const Int3 block_ratio = ratio(fine.blocks(), coarse.blocks(), "blocks");
  for (int a = 0; a < 3; ++a) {
    if (fine.block_cells()[a] / cell_ratio[a] * block_ratio[a] != coarse.block_cells()[a] ||
        fine.block_cells()[a] % cell_ratio[a] != 0) {
      throw std::invalid_argument(
          "level transfer: a fine block's coarse cells do not fit in one coarse block");
    }
    coarse_ghost_[a] = coarse.is_flat(a) ? 0 : coarse_ghost;
    if (coarse_ghost < 0 || coarse_ghost_[a] > coarse.ghost()[a]) {
      throw std::invalid_argument(fmt::format("level transfer: coarse ghost {} outside [0, {}]",
                                              coarse_ghost, coarse.ghost()[a]));
    }
  }
  if (fine.ranks() != coarse.ranks() || fine.rank() != coarse.rank()) {
    throw std::invalid_argument("level transfer: both levels must be seen from the same rank");
  }
  tags_ = comm.allocate_tags(name, 2 * kChildren);
  Runtime& runtime = comm.runtime();
  const int me = fine.rank();
  for (const LevelPair& level_pair : local_level_pairs(fine, coarse)) {
    const Int3 fc = fine.block_coord(level_pair.fine_id);
    Pair pair;
    pair.fine_id = level_pair.fine_id;
    pair.fine_rank = level_pair.fine_rank;
    pair.coarse_rank = level_pair.coarse_rank;
    pair.child = level_pair.child;
    for (int a = 0; a < 3; ++a) {
      const int offset = fc[a] % block_ratio[a];
      pair.coarse_box.lo[a] = offset * (fine.block_cells()[a] / cell_ratio[a]);
      pair.coarse_box.hi[a] = pair.coarse_box.lo[a] + fine.block_cells()[a] / cell_ratio[a];
      pair.grown_box.lo[a] = pair.coarse_box.lo[a] - coarse_ghost_[a];
      pair.grown_box.hi[a] = pair.coarse_box.hi[a] + coarse_ghost_[a];
    }
    if (pair.fine_rank == me) pair.fine_local = *fine.local_index(pair.fine_id);
    if (pair.coarse_rank == me) pair.coarse_local = *coarse.local_index(level_pair.coarse_id);
    if (pair.remote()) {
      if (pair.grown_box.cells() > INT_MAX / static_cast<std::int64_t>(sizeof(double))) {
        throw std::invalid_argument("level transfer: a block pair's message is too large");
      }
      pair.restrict_buffer.assign(static_cast<std::size_t>(pair.coarse_box.cells()), 0.0);
      pair.prolong_buffer.assign(static_cast<std::size_t>(pair.grown_box.cells()), 0.0);
      pair.restrict_handle =
          runtime.create_handle(fmt::format("{}.restrict[fine block {}]", name, pair.fine_id));
      pair.prolong_handle =
          runtime.create_handle(fmt::format("{}.prolong[fine block {}]", name, pair.fine_id));
    }
    pairs_.push_back(std::move(pair));
  }
}

LevelTransfer::~LevelTransfer() = default;

int LevelTransfer::local_pairs() const {
  return static_cast<int>(pairs_.size());
}

int LevelTransfer::remote_pairs() const {
  int count = 0;
  for (const Pair& p : pairs_) count += p.remote();
  return count;
}

namespace {

void check_field(const BlockField& field, const UniformMesh& mesh, const char* role) {
  if (&field.mesh() != &mesh || field.nvars() != 1) {
    throw std::invalid_argument(fmt::format(
        "level transfer: field '{}' must be a one-variable field on the {} level's mesh",
        field.name(), role));
  }
}

}  // namespace

namespace {
// Attributes with the body's work stated in cells (modelled compute, docs/scaling-sim.md).
TaskAttributes with_work(TaskAttributes attributes, Int3 cells) {
  attributes.work = product(cells);
  return attributes;
}
}  // namespace

void LevelTransfer::restrict_field(const BlockField& fine, BlockField& coarse,
                                   RestrictionKernel kernel) {
  check_field(fine, fine_, "fine");
  check_field(coarse, coarse_, "coarse");
  Runtime& runtime = comm_.runtime();
  const auto k = std::make_shared<const RestrictionKernel>(std::move(kernel));
  const Priority skeleton = exec_.skeleton_priority();
  exec_.begin_phase("restrict");
  for (Pair& p : pairs_) {
    if (p.fine_local == kNotLocal) continue;
    const ConstGridView from = block_view(fine.layout(), fine.data(p.fine_local));
    const Int3 extent = p.coarse_box.extent();
    if (!p.remote()) {
      const GridView to = block_view(coarse.layout(), coarse.data(p.coarse_local));
      runtime.submit(
          "restrict",
          {read(fine.interior(p.fine_local)), read(fine.ghosts(p.fine_local)),
           readwrite(coarse.interior(p.coarse_local))},
          [k, from, extent,
           to = GridView{&to(p.coarse_box.lo.x, p.coarse_box.lo.y, p.coarse_box.lo.z), to.stride_y,
                         to.stride_z}] { (*k)(from, to, extent); },
          with_work(TaskAttributes(Priority::normal, {p.fine_id}), extent));
    } else {
      const GridView to{p.restrict_buffer.data(), extent.x, std::ptrdiff_t{extent.x} * extent.y};
      runtime.submit(
          "restrict",
          {read(fine.interior(p.fine_local)), read(fine.ghosts(p.fine_local)),
           write(p.restrict_handle)},
          [k, from, to, extent] { (*k)(from, to, extent); },
          with_work(TaskAttributes(skeleton, {p.fine_id}), extent));
    }
  }
  for (Pair& p : pairs_) {
    if (!p.remote()) continue;
    const std::size_t bytes = p.restrict_buffer.size() * sizeof(double);
    const TaskAttributes attributes(skeleton, {p.fine_id});
    if (p.fine_local != kNotLocal) {
      comm_.isend(p.restrict_handle, p.restrict_buffer.data(), bytes, p.coarse_rank,
                  tags_.tag(p.child), attributes, "restrict.send");
    } else {
      comm_.irecv(p.restrict_handle, p.restrict_buffer.data(), bytes, p.fine_rank,
                  tags_.tag(p.child), attributes, "restrict.recv");
    }
  }
  exec_.end_phase();
  exec_.begin_phase("restrict");
  for (Pair& p : pairs_) {
    if (!p.remote() || p.coarse_local == kNotLocal) continue;
    runtime.submit(
        "restrict.unpack", {read(p.restrict_handle), readwrite(coarse.interior(p.coarse_local))},
        [layout = &coarse.layout(), block = coarse.data(p.coarse_local), box = p.coarse_box,
         in = p.restrict_buffer.data()] { unpack_region(*layout, block, box, in); },
        TaskAttributes(skeleton, {p.fine_id}));
  }
  exec_.end_phase();
}

void LevelTransfer::prolong_field(const BlockField& coarse, BlockField& fine,
                                  ProlongationKernel kernel, bool fine_ghosts,
                                  const std::function<void(LocalBlockIndex)>& after_block) {
  check_field(coarse, coarse_, "coarse");
  check_field(fine, fine_, "fine");
  Runtime& runtime = comm_.runtime();
  const auto k = std::make_shared<const ProlongationKernel>(std::move(kernel));
  const Priority skeleton = exec_.skeleton_priority();
  exec_.begin_phase("prolong");
  for (Pair& p : pairs_) {
    if (!p.remote() || p.coarse_local == kNotLocal) continue;
    runtime.submit(
        "prolong.pack",
        {read(coarse.interior(p.coarse_local)), read(coarse.ghosts(p.coarse_local)),
         write(p.prolong_handle)},
        [layout = &coarse.layout(), block = coarse.data(p.coarse_local), box = p.grown_box,
         out = p.prolong_buffer.data()] { pack_region(*layout, block, box, out); },
        TaskAttributes(skeleton, {p.fine_id}));
  }
  for (Pair& p : pairs_) {
    if (!p.remote()) continue;
    const std::size_t bytes = p.prolong_buffer.size() * sizeof(double);
    const TaskAttributes attributes(skeleton, {p.fine_id});
    const int tag = tags_.tag(kChildren + p.child);
    if (p.coarse_local != kNotLocal) {
      comm_.isend(p.prolong_handle, p.prolong_buffer.data(), bytes, p.fine_rank, tag, attributes,
                  "prolong.send");
    } else {
      comm_.irecv(p.prolong_handle, p.prolong_buffer.data(), bytes, p.coarse_rank, tag, attributes,
                  "prolong.recv");
    }
  }
  exec_.end_phase();
  exec_.begin_phase("prolong");
  for (Pair& p : pairs_) {
    if (p.fine_local == kNotLocal) continue;
    const GridView to = block_view(fine.layout(), fine.data(p.fine_local));
    const Int3 cells = fine_.block_cells();
    if (!p.remote()) {
      const ConstGridView c = block_view(coarse.layout(), coarse.data(p.coarse_local));
      const ConstGridView from{&c(p.coarse_box.lo.x, p.coarse_box.lo.y, p.coarse_box.lo.z),
                               c.stride_y, c.stride_z};
      accesses_ = {read(coarse.interior(p.coarse_local)), read(coarse.ghosts(p.coarse_local)),
                   readwrite(fine.interior(p.fine_local))};
      if (fine_ghosts) accesses_.push_back(readwrite(fine.ghosts(p.fine_local)));
      runtime.submit(
          "prolong", std::span<const Access>(accesses_),
          [k, from, to, cells] { (*k)(from, to, cells); },
          with_work(TaskAttributes(Priority::normal, {p.fine_id}), cells));
    } else {
      const Int3 e = p.grown_box.extent();
      const std::ptrdiff_t sy = e.x;
      const std::ptrdiff_t sz = std::ptrdiff_t{e.x} * e.y;
      const ConstGridView from{
          p.prolong_buffer.data() + coarse_ghost_.x + coarse_ghost_.y * sy + coarse_ghost_.z * sz,
          sy, sz};
      accesses_ = {read(p.prolong_handle), readwrite(fine.interior(p.fine_local))};
      if (fine_ghosts) accesses_.push_back(readwrite(fine.ghosts(p.fine_local)));
      runtime.submit(
          "prolong", std::span<const Access>(accesses_),
          [k, from, to, cells] { (*k)(from, to, cells); },
          with_work(TaskAttributes(skeleton, {p.fine_id}), cells));
    }
    if (after_block) after_block(p.fine_local);
  }
  exec_.end_phase();
}

}  // namespace tessera
