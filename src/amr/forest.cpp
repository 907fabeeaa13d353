// Forest: the dimension-free bookkeeping around a p4est backend (forest_backend.hpp), which
// owns the p4est objects of one dimension and refills the tables after every change.
#include "tessera/amr/forest.hpp"

#include <p4est_base.h>
#include <sc.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>

#include "amr/forest_backend.hpp"
#include "tessera/base/check_mpi.hpp"

namespace tessera {

void init_p4est_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    sc_init(MPI_COMM_WORLD, 0, 0, nullptr, SC_LP_ERROR);
    p4est_init(nullptr, SC_LP_ERROR);
  });
}

Forest::Forest(MPI_Comm comm, std::array<int, 3> root_blocks, std::array<bool, 3> periodic, int dim)
    : root_blocks_(root_blocks), periodic_(periodic), dim_(dim) {
  if (dim != 2 && dim != 3)
    throw std::invalid_argument("Forest: dimension must be 2 or 3, got " + std::to_string(dim));
  for (int a = 0; a < 3; ++a)
    if (root_blocks[a] < 1)
      throw std::invalid_argument("Forest: root block count along axis " + std::to_string(a) +
                                  " must be >= 1, got " + std::to_string(root_blocks[a]));
  if (dim == 2 && root_blocks[2] != 1)
    throw std::invalid_argument("Forest: a 2-D forest has one root block along z, got " +
                                std::to_string(root_blocks[2]));
  if (dim == 2) periodic_[2] = false;
  backend_ = dim == 2 ? make_forest_backend_2d(comm, root_blocks, periodic_)
                      : make_forest_backend_3d(comm, root_blocks, periodic_);
  backend_->describe(t_);
}

Forest::Forest(MPI_Comm comm, std::array<int, 3> root_blocks, std::span<const BlockPlace> leaves,
               std::span<const std::int64_t> offsets, std::array<bool, 3> periodic, int dim)
    : Forest(comm, root_blocks, periodic, dim) {
  // The leaves and their ancestors, sorted for lookup by (level, x, y, z). Refining only
  // toward stored leaves keeps a list that does not tile the brick from refining a gap
  // down to the finest level.
  using Key = std::array<std::int64_t, 4>;
  std::vector<Key> keys, ancestors;
  keys.reserve(leaves.size());
  for (const BlockPlace& p : leaves) {
    keys.push_back({p.level, p.origin[0], p.origin[1], p.origin[2]});
    for (int level = 0; level < p.level; ++level) {
      const std::int64_t length = kRootLength >> level;
      // Origins are >= 0, so % rounds down to the ancestor's corner (z stays 0 in 2-D).
      ancestors.push_back({level, p.origin[0] - p.origin[0] % length,
                           p.origin[1] - p.origin[1] % length,
                           dim == 2 ? 0 : p.origin[2] - p.origin[2] % length});
    }
  }
  std::sort(keys.begin(), keys.end());
  std::sort(ancestors.begin(), ancestors.end());
  ancestors.erase(std::unique(ancestors.begin(), ancestors.end()), ancestors.end());
  const auto in = [](const std::vector<Key>& set) {
    return [&set](const BlockPlace& p) {
      return std::binary_search(set.begin(), set.end(),
                                Key{p.level, p.origin[0], p.origin[1], p.origin[2]});
    };
  };
  const std::function<bool(const BlockPlace&)> is_leaf = in(keys), is_ancestor = in(ancestors);
  int all_tile =
      backend_->refine_to(is_leaf, is_ancestor, static_cast<std::int64_t>(leaves.size())) ? 1 : 0;
  TESSERA_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, &all_tile, 1, MPI_INT, MPI_MIN, backend_->communicator()));
  if (all_tile == 0)
    throw std::invalid_argument("Forest: the stored blocks do not tile the brick of root blocks");
  if (offsets.size() == static_cast<std::size_t>(size()) + 1) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(size()));
    for (std::size_t r = 0; r < counts.size(); ++r) counts[r] = offsets[r + 1] - offsets[r];
    backend_->partition_given(counts);
  } else {
    backend_->partition({});
  }
  backend_->describe(t_);
}

Forest::~Forest() = default;

int Forest::rank() const {
  return backend_->rank();
}
int Forest::size() const {
  return backend_->size();
}
MPI_Comm Forest::communicator() const {
  return backend_->communicator();
}

std::int64_t Forest::global_index(BlockRef ref) const {
  return ref.ghost ? t_.ghost_global[static_cast<std::size_t>(ref.index)]
                   : global_offset() + ref.index;
}

std::array<std::array<double, 2>, 3> Forest::unit_box(const BlockPlace& place) const {
  std::array<std::array<double, 2>, 3> box{};
  for (int a = 0; a < 3; ++a) {
    if (a >= dim_) {  // a 2-D block spans the whole (single) root block along z
      box[a] = {0.0, 1.0};
      continue;
    }
    // Numerator and denominator are exact integers, so each bound is the correctly
    // rounded (here: exact) dyadic fraction, whatever way it is computed.
    const double extent = static_cast<double>(root_blocks_[a]) * static_cast<double>(kRootLength);
    box[a][0] = static_cast<double>(place.origin[a]) / extent;
    box[a][1] = static_cast<double>(place.origin[a] + place.length()) / extent;
  }
  return box;
}

std::vector<std::int64_t> Forest::global_level_counts(int max_level) const {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(max_level) + 1, 0);
  for (const auto& b : t_.local)
    if (b.level <= max_level) ++counts[static_cast<std::size_t>(b.level)];
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()),
                                  MPI_INT64_T, MPI_SUM, communicator()));
  return counts;
}

void Forest::exchange_ghost_bytes(const void* local, void* ghost,
                                  std::size_t bytes_per_block) const {
  backend_->exchange_ghost_bytes(local, ghost, bytes_per_block);
}

AdaptResult Forest::adapt(std::span<const std::int8_t> marks) {
  if (marks.size() != t_.local.size())
    throw std::invalid_argument("Forest::adapt: one mark per local block expected");
  AdaptResult result = backend_->adapt(marks);
  backend_->describe(t_);
  return result;
}

PartitionResult Forest::partition(std::span<const std::int64_t> weights) {
  if (!weights.empty() && weights.size() != t_.local.size())
    throw std::invalid_argument("Forest::partition: one weight per local block expected");
  const std::vector<std::int64_t> old_offsets = t_.global_offsets;
  const std::int64_t shipped = backend_->partition(weights);
  backend_->describe(t_);
  return transfers_since(old_offsets, shipped);
}

PartitionResult Forest::partition_given(std::span<const std::int64_t> counts) {
  std::int64_t sum = 0;
  bool negative = false;
  for (const std::int64_t c : counts) {
    negative = negative || c < 0;
    sum += c;
  }
  if (counts.size() != static_cast<std::size_t>(size()) || negative || sum != global_count())
    throw std::invalid_argument(
        "Forest::partition_given: one count >= 0 per rank, summing to the block count, expected");
  const std::vector<std::int64_t> old_offsets = t_.global_offsets;
  const std::int64_t shipped = backend_->partition_given(counts);
  backend_->describe(t_);
  return transfers_since(old_offsets, shipped);
}

PartitionResult Forest::gather_families() {
  const std::vector<std::int64_t> old_offsets = t_.global_offsets;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size()));
  for (std::size_t r = 0; r < counts.size(); ++r) counts[r] = old_offsets[r + 1] - old_offsets[r];
  if (!backend_->counts_for_coarsening(counts)) return transfers_since(old_offsets, 0);
  const std::int64_t shipped = backend_->partition_given(counts);
  backend_->describe(t_);
  return transfers_since(old_offsets, shipped);
}

PartitionResult Forest::transfers_since(const std::vector<std::int64_t>& old_offsets,
                                        std::int64_t shipped) const {
  // The SFC order is unchanged: global index g moves from its old owner to its new one.
  const int me = rank();
  const auto& new_offsets = t_.global_offsets;
  PartitionResult result;
  result.global_moved = shipped;
  const std::int64_t old_lo = old_offsets[me], old_hi = old_offsets[me + 1];
  const std::int64_t new_lo = new_offsets[me], new_hi = new_offsets[me + 1];
  for (int peer = 0; peer < size(); ++peer) {
    if (peer == me) continue;
    // Sends: my old range intersected with the peer's new range.
    const std::int64_t s_lo = std::max(old_lo, new_offsets[peer]);
    const std::int64_t s_hi = std::min(old_hi, new_offsets[peer + 1]);
    if (s_lo < s_hi)
      result.sends.push_back(
          {peer, static_cast<std::int32_t>(s_lo - old_lo), static_cast<std::int32_t>(s_hi - s_lo)});
    // Receives: my new range intersected with the peer's old range.
    const std::int64_t r_lo = std::max(new_lo, old_offsets[peer]);
    const std::int64_t r_hi = std::min(new_hi, old_offsets[peer + 1]);
    if (r_lo < r_hi)
      result.receives.push_back(
          {peer, static_cast<std::int32_t>(r_lo - new_lo), static_cast<std::int32_t>(r_hi - r_lo)});
  }
  const std::int64_t k_lo = std::max(old_lo, new_lo), k_hi = std::min(old_hi, new_hi);
  if (k_lo < k_hi) {
    result.kept_old_first = static_cast<std::int32_t>(k_lo - old_lo);
    result.kept_new_first = static_cast<std::int32_t>(k_lo - new_lo);
    result.kept_count = static_cast<std::int32_t>(k_hi - k_lo);
  }
  return result;
}

bool Forest::is_face_balanced() const {
  return backend_->is_face_balanced();
}

}  // namespace tessera
