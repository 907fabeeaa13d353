// Forest on p4est's 3-D p8est. The p8est keeps one small record per leaf (QuadData) that
// carries the caller's marks and weights into p4est's callbacks and tells, after a change,
// which old block each new leaf came from.
#include "tessera/amr/forest.hpp"

#include <p8est.h>
#include <p8est_algorithms.h>
#include <p8est_bits.h>
#include <p8est_extended.h>
#include <p8est_ghost.h>
#include <p8est_mesh.h>

#include <algorithm>
#include <cassert>
#include <mutex>
#include <stdexcept>
#include <string>

#include "comm/check_mpi.hpp"

namespace tessera {

static_assert(kRootLength == P8EST_ROOT_LEN, "forest.hpp must match p8est's root length");
static_assert(kMaxForestLevel == P8EST_QMAXLEVEL, "forest.hpp must match p8est's finest level");

namespace {

// Per-leaf record stored by p4est.
struct QuadData {
  std::int32_t old_index;  // local index before the current change
  std::int8_t mark;        // adapt: +1 split, -1 merge, 0 keep
  std::int8_t kind;        // AdaptSource::Kind after adapt
  std::int8_t child;       // child number for refined leaves
  std::int8_t pad;
};

QuadData& data_of(p8est_quadrant_t* q) {
  return *static_cast<QuadData*>(q->p.user_data);
}

void init_p4est_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    sc_init(MPI_COMM_WORLD, 0, 0, nullptr, SC_LP_ERROR);
    p4est_init(nullptr, SC_LP_ERROR);
  });
}

// Weights handed to p8est_partition_ext's callback, by old local index.
struct WeightContext {
  std::span<const std::int64_t> weights;
};

int weight_of(p8est_t* p8est, p4est_topidx_t, p8est_quadrant_t* q) {
  auto* ctx = static_cast<WeightContext*>(p8est->user_pointer);
  if (ctx == nullptr || ctx->weights.empty()) return 1;
  return static_cast<int>(ctx->weights[data_of(q).old_index]);
}

int refine_marked(p8est_t*, p4est_topidx_t, p8est_quadrant_t* q) {
  return data_of(q).mark > 0;
}

int coarsen_marked(p8est_t*, p4est_topidx_t, p8est_quadrant_t* family[]) {
  for (int c = 0; c < P8EST_CHILDREN; ++c)
    if (data_of(family[c]).mark >= 0) return 0;
  return 1;
}

void record_replacement(p8est_t*, p4est_topidx_t, int num_outgoing, p8est_quadrant_t* outgoing[],
                        int num_incoming, p8est_quadrant_t* incoming[]) {
  if (num_outgoing == 1) {  // split: 1 -> 8
    const std::int32_t parent = data_of(outgoing[0]).old_index;
    for (int c = 0; c < num_incoming; ++c)
      data_of(incoming[c]) = {parent, 0, static_cast<std::int8_t>(AdaptSource::Kind::refined),
                              static_cast<std::int8_t>(c), 0};
  } else {  // merge: 8 -> 1
    data_of(incoming[0]) = {data_of(outgoing[0]).old_index, 0,
                            static_cast<std::int8_t>(AdaptSource::Kind::merged), 0, 0};
  }
}

template <class T>
T& array_at(sc_array_t* a, std::size_t i) {
  return *reinterpret_cast<T*>(sc_array_index(a, i));
}

// Calls f(tree, quadrant) for every local leaf in SFC order.
template <class F>
void for_each_local(p8est_t* p8est, F&& f) {
  for (p4est_topidx_t t = p8est->first_local_tree; t <= p8est->last_local_tree; ++t) {
    auto& tree = array_at<p8est_tree_t>(p8est->trees, static_cast<std::size_t>(t));
    for (std::size_t q = 0; q < tree.quadrants.elem_count; ++q)
      f(t, &array_at<p8est_quadrant_t>(&tree.quadrants, q));
  }
}

}  // namespace

struct Forest::P4est {
  MPI_Comm comm = MPI_COMM_NULL;
  p8est_connectivity_t* connectivity = nullptr;
  p8est_t* forest = nullptr;
  p8est_ghost_t* ghost = nullptr;
  std::vector<std::array<std::int64_t, 3>> tree_origin;  // brick position * kRootLength

  ~P4est() {
    if (ghost != nullptr) p8est_ghost_destroy(ghost);
    if (forest != nullptr) p8est_destroy(forest);
    if (connectivity != nullptr) p8est_connectivity_destroy(connectivity);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm != MPI_COMM_NULL && finalized == 0) MPI_Comm_free(&comm);
  }

  BlockPlace place(p4est_topidx_t tree, const p8est_quadrant_t* q) const {
    const auto& o = tree_origin[static_cast<std::size_t>(tree)];
    return {q->level, {o[0] + q->x, o[1] + q->y, o[2] + q->z}};
  }
};

Forest::Forest(MPI_Comm comm, std::array<int, 3> root_blocks, std::array<bool, 3> periodic)
    : root_blocks_(root_blocks), periodic_(periodic), p4est_(std::make_unique<P4est>()) {
  for (int a = 0; a < 3; ++a)
    if (root_blocks[a] < 1)
      throw std::invalid_argument("Forest: root block count along axis " + std::to_string(a) +
                                  " must be >= 1, got " + std::to_string(root_blocks[a]));
  init_p4est_once();
  TESSERA_MPI_CHECK(MPI_Comm_dup(comm, &p4est_->comm));
  p4est_->connectivity =
      p8est_connectivity_new_brick(root_blocks[0], root_blocks[1], root_blocks[2],
                                   periodic[0] ? 1 : 0, periodic[1] ? 1 : 0, periodic[2] ? 1 : 0);
  const auto* conn = p4est_->connectivity;
  p4est_->tree_origin.resize(static_cast<std::size_t>(conn->num_trees));
  for (p4est_topidx_t t = 0; t < conn->num_trees; ++t) {
    // Brick vertices sit at integer positions; corner 0 of a tree is its lower corner.
    const p4est_topidx_t v = conn->tree_to_vertex[P8EST_CHILDREN * t];
    for (int a = 0; a < 3; ++a)
      p4est_->tree_origin[static_cast<std::size_t>(t)][a] =
          static_cast<std::int64_t>(conn->vertices[3 * v + a]) * kRootLength;
  }
  p4est_->forest = p8est_new_ext(p4est_->comm, p4est_->connectivity, 0, 0, 1, sizeof(QuadData),
                                 nullptr, nullptr);
  rebuild();
}

namespace {

// The leaves a forest is rebuilt from, sorted for lookup (level, x, y, z).
struct StoredLeaves {
  std::vector<std::array<std::int64_t, 4>> keys;
  const std::vector<std::array<std::int64_t, 3>>* tree_origin;
  bool contains(const BlockPlace& p) const {
    return std::binary_search(
        keys.begin(), keys.end(),
        std::array<std::int64_t, 4>{p.level, p.origin[0], p.origin[1], p.origin[2]});
  }
};

// A quadrant that is not one of the stored leaves must be an ancestor of some of them.
int refine_unless_stored(p8est_t* p8est, p4est_topidx_t tree, p8est_quadrant_t* q) {
  const auto* stored = static_cast<const StoredLeaves*>(p8est->user_pointer);
  const auto& o = (*stored->tree_origin)[static_cast<std::size_t>(tree)];
  const BlockPlace place{q->level, {o[0] + q->x, o[1] + q->y, o[2] + q->z}};
  return q->level < kMaxForestLevel && !stored->contains(place);
}

}  // namespace

Forest::Forest(MPI_Comm comm, std::array<int, 3> root_blocks, std::span<const BlockPlace> leaves,
               std::span<const std::int64_t> offsets, std::array<bool, 3> periodic)
    : Forest(comm, root_blocks, periodic) {
  StoredLeaves stored{{}, &p4est_->tree_origin};
  stored.keys.reserve(leaves.size());
  for (const BlockPlace& p : leaves)
    stored.keys.push_back({p.level, p.origin[0], p.origin[1], p.origin[2]});
  std::sort(stored.keys.begin(), stored.keys.end());
  p8est_t* forest = p4est_->forest;
  forest->user_pointer = &stored;
  p8est_refine_ext(forest, 1, kMaxForestLevel, refine_unless_stored, nullptr, nullptr);
  forest->user_pointer = nullptr;
  bool tiles = static_cast<std::size_t>(forest->global_num_quadrants) == leaves.size();
  for_each_local(forest, [&](p4est_topidx_t t, p8est_quadrant_t* q) {
    tiles = tiles && stored.contains(p4est_->place(t, q));
  });
  int all_tile = tiles ? 1 : 0;
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all_tile, 1, MPI_INT, MPI_MIN, p4est_->comm));
  if (all_tile == 0)
    throw std::invalid_argument("Forest: the stored blocks do not tile the brick of root blocks");
  if (offsets.size() == static_cast<std::size_t>(size()) + 1) {
    std::vector<p4est_locidx_t> counts(static_cast<std::size_t>(size()));
    for (std::size_t r = 0; r < counts.size(); ++r)
      counts[r] = static_cast<p4est_locidx_t>(offsets[r + 1] - offsets[r]);
    p8est_partition_given(forest, counts.data());
  } else {
    WeightContext ctx{{}};
    forest->user_pointer = &ctx;
    p8est_partition_ext(forest, 1, weight_of);
    forest->user_pointer = nullptr;
  }
  rebuild();
}

Forest::~Forest() = default;

int Forest::rank() const {
  return p4est_->forest->mpirank;
}
int Forest::size() const {
  return p4est_->forest->mpisize;
}
MPI_Comm Forest::communicator() const {
  return p4est_->comm;
}

std::int64_t Forest::global_index(BlockRef ref) const {
  return ref.ghost ? ghost_global_[ref.index] : global_offset() + ref.index;
}

std::array<std::array<double, 2>, 3> Forest::unit_box(const BlockPlace& place) const {
  std::array<std::array<double, 2>, 3> box{};
  for (int a = 0; a < 3; ++a) {
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
  for (const auto& b : local_)
    if (b.level <= max_level) ++counts[static_cast<std::size_t>(b.level)];
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()),
                                  MPI_INT64_T, MPI_SUM, p4est_->comm));
  return counts;
}

void Forest::exchange_ghost_bytes(const void* local, void* ghost,
                                  std::size_t bytes_per_block) const {
  sc_array_t* mirrors = &p4est_->ghost->mirrors;
  std::vector<void*> mirror_data(mirrors->elem_count);
  auto* base = static_cast<const std::byte*>(local);
  for (std::size_t m = 0; m < mirrors->elem_count; ++m) {
    const auto& q = array_at<p8est_quadrant_t>(mirrors, m);
    mirror_data[m] = const_cast<std::byte*>(base + static_cast<std::size_t>(q.p.piggy3.local_num) *
                                                       bytes_per_block);
  }
  p8est_ghost_exchange_custom(p4est_->forest, p4est_->ghost, bytes_per_block, mirror_data.data(),
                              ghost);
}

AdaptResult Forest::adapt(std::span<const std::int8_t> marks) {
  if (marks.size() != local_.size())
    throw std::invalid_argument("Forest::adapt: one mark per local block expected");
  p8est_t* forest = p4est_->forest;
  std::int32_t index = 0;
  for_each_local(forest, [&](p4est_topidx_t, p8est_quadrant_t* q) {
    data_of(q) = {index, marks[static_cast<std::size_t>(index)],
                  static_cast<std::int8_t>(AdaptSource::Kind::kept), 0, 0};
    ++index;
  });
  p8est_refine_ext(forest, 0, kMaxForestLevel, refine_marked, nullptr, record_replacement);
  p8est_coarsen_ext(forest, 0, 0, coarsen_marked, nullptr, record_replacement);

  AdaptResult result;
  result.sources.reserve(static_cast<std::size_t>(forest->local_num_quadrants));
  for_each_local(forest, [&](p4est_topidx_t, p8est_quadrant_t* q) {
    const QuadData& d = data_of(q);
    const auto kind = static_cast<AdaptSource::Kind>(d.kind);
    result.sources.push_back({kind, d.old_index, d.child});
    if (kind == AdaptSource::Kind::refined && d.child == 0) ++result.refined;
    if (kind == AdaptSource::Kind::merged) ++result.merged;
  });
  rebuild();
  return result;
}

PartitionResult Forest::partition(std::span<const std::int64_t> weights) {
  if (!weights.empty() && weights.size() != local_.size())
    throw std::invalid_argument("Forest::partition: one weight per local block expected");
  p8est_t* forest = p4est_->forest;
  const std::vector<std::int64_t> old_offsets = global_offsets_;
  std::int32_t index = 0;
  for_each_local(forest,
                 [&](p4est_topidx_t, p8est_quadrant_t* q) { data_of(q).old_index = index++; });
  WeightContext ctx{weights};
  forest->user_pointer = &ctx;
  const p4est_gloidx_t shipped = p8est_partition_ext(forest, 1, weight_of);
  forest->user_pointer = nullptr;
  rebuild();
  return transfers_since(old_offsets, shipped);
}

PartitionResult Forest::gather_families() {
  p8est_t* forest = p4est_->forest;
  const std::vector<std::int64_t> old_offsets = global_offsets_;
  std::vector<p4est_locidx_t> counts(static_cast<std::size_t>(size()));
  for (int r = 0; r < size(); ++r)
    counts[static_cast<std::size_t>(r)] = static_cast<p4est_locidx_t>(
        old_offsets[static_cast<std::size_t>(r) + 1] - old_offsets[static_cast<std::size_t>(r)]);
  if (p8est_partition_for_coarsening(forest, counts.data()) == 0)
    return transfers_since(old_offsets, 0);
  const p4est_gloidx_t shipped = p8est_partition_given(forest, counts.data());
  rebuild();
  return transfers_since(old_offsets, shipped);
}

PartitionResult Forest::transfers_since(const std::vector<std::int64_t>& old_offsets,
                                        std::int64_t shipped) const {
  // The SFC order is unchanged: global index g moves from its old owner to its new one.
  const int me = rank();
  const auto& new_offsets = global_offsets_;
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
  return p8est_is_balanced(p4est_->forest, P8EST_CONNECT_FACE) != 0;
}

void Forest::rebuild() {
  p8est_t* forest = p4est_->forest;
  if (p4est_->ghost != nullptr) p8est_ghost_destroy(p4est_->ghost);
  p4est_->ghost = p8est_ghost_new(forest, P8EST_CONNECT_FACE);
  p8est_ghost_t* ghost = p4est_->ghost;
  p8est_mesh_t* mesh = p8est_mesh_new_ext(forest, ghost, 0, 0, P8EST_CONNECT_FACE);

  const int ranks = forest->mpisize;
  global_offsets_.assign(forest->global_first_quadrant, forest->global_first_quadrant + ranks + 1);

  const auto local_count = static_cast<std::size_t>(forest->local_num_quadrants);
  local_.clear();
  local_.reserve(local_count);
  family_first_.assign(local_count, -1);
  std::size_t tree_start = 0;
  for (p4est_topidx_t t = forest->first_local_tree; t <= forest->last_local_tree; ++t) {
    auto& tree = array_at<p8est_tree_t>(forest->trees, static_cast<std::size_t>(t));
    auto* quads = reinterpret_cast<p8est_quadrant_t*>(tree.quadrants.array);
    const std::size_t n = tree.quadrants.elem_count;
    for (std::size_t q = 0; q < n; ++q) local_.push_back(p4est_->place(t, &quads[q]));
    // Families are contiguous in the SFC order; a family starts at a child 0.
    for (std::size_t q = 0; q + P8EST_CHILDREN <= n;) {
      if (quads[q].level > 0 && p8est_quadrant_is_familyv(&quads[q])) {
        for (int c = 0; c < P8EST_CHILDREN; ++c)
          family_first_[tree_start + q + static_cast<std::size_t>(c)] =
              static_cast<std::int32_t>(tree_start + q);
        q += P8EST_CHILDREN;
      } else {
        ++q;
      }
    }
    tree_start += n;
  }

  const std::size_t ghost_count = ghost->ghosts.elem_count;
  ghost_.clear();
  ghost_.reserve(ghost_count);
  ghost_owner_.assign(ghost_count, 0);
  ghost_global_.assign(ghost_count, 0);
  for (std::size_t g = 0; g < ghost_count; ++g) {
    const auto& q = array_at<p8est_quadrant_t>(&ghost->ghosts, g);
    ghost_.push_back(p4est_->place(q.p.piggy3.which_tree, &q));
    const int owner = mesh->ghost_to_proc[g];
    ghost_owner_[g] = owner;
    ghost_global_[g] = global_offsets_[owner] + q.p.piggy3.local_num;
  }

  const auto ref_of = [&](p4est_locidx_t q) {
    return q < mesh->local_num_quadrants
               ? BlockRef{false, q}
               : BlockRef{true, static_cast<std::int32_t>(q - mesh->local_num_quadrants)};
  };
  neighbors_.assign(local_count * kBlockFaces, FaceNeighbors{});
  for (std::size_t i = 0; i < local_count; ++i) {
    const BlockPlace& me = local_[i];
    for (int f = 0; f < kBlockFaces; ++f) {
      const std::size_t slot = i * kBlockFaces + static_cast<std::size_t>(f);
      const p4est_locidx_t q = mesh->quad_to_quad[slot];
      const int code = mesh->quad_to_face[slot];
      FaceNeighbors& out = neighbors_[slot];
      if (q == static_cast<p4est_locidx_t>(i) && code == f) {
        out.kind = FaceKind::boundary;
      } else if (code >= 0 && code < 24) {
        out.kind = FaceKind::same;
        out.blocks[0] = ref_of(q);
      } else if (code >= 24) {
        out.kind = FaceKind::coarser;
        out.blocks[0] = ref_of(q);
      } else {
        out.kind = FaceKind::finer;
        const auto* half = static_cast<const p4est_locidx_t*>(
            sc_array_index(mesh->quad_to_half, static_cast<std::size_t>(q)));
        // Order the four by their offset inside the face (brick trees are aligned).
        const int axis = f / 2;
        const int t0 = axis == 0 ? 1 : 0, t1 = axis == 2 ? 1 : 2;
        const std::int64_t half_length = me.length() / 2;
        for (int h = 0; h < 4; ++h) {
          const BlockRef ref = ref_of(half[h]);
          const BlockPlace& p = place(ref);
          const auto a = static_cast<int>((p.origin[t0] - me.origin[t0]) / half_length);
          const auto b = static_cast<int>((p.origin[t1] - me.origin[t1]) / half_length);
          assert(a >= 0 && a < 2 && b >= 0 && b < 2);
          out.blocks[static_cast<std::size_t>(a + 2 * b)] = ref;
        }
      }
    }
  }
  p8est_mesh_destroy(mesh);
}

}  // namespace tessera
