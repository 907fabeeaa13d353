// The collectives of the communication lane: all-reduces (exact sums and MPI operations)
// and barriers, posted either as MPI's non-blocking collectives or as point-to-point trees
// (TESSERA_COLLECTIVES), and the exact-sum reduction they share.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "comm/comm_lane.hpp"
#include "comm/tree_allreduce.hpp"
#include "tessera/base/check_mpi.hpp"
#include "tessera/base/tick_clock.hpp"

namespace tessera {

using detail::check_mpi;

// MPI reduction over ExactSum limbs (+ one word of special-value flags): integer
// addition, hence exact, associative and commutative.
void detail::exact_sum_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  auto* a = static_cast<std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  constexpr int kWords = ExactSum::kLimbs + 1;
  // Items of the contiguous exact type, or (the SMPI build's transport, see Comm::post)
  // whole accumulators' worth of MPI_INT64_T words.
  int items = *len;
  if (*type == MPI_INT64_T) {
    if (*len % kWords != 0) {
      std::fprintf(stderr, "tessera: exact-sum reduction split inside an accumulator (%d words)\n",
                   *len);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    items = *len / kWords;
  }
  for (int item = 0; item < items; ++item) {
    ExactSum sum;
    for (int i = 0; i < ExactSum::kLimbs; ++i) {
      sum.limbs()[i] = a[item * kWords + i] + b[item * kWords + i];
    }
    sum.normalize();
    for (int i = 0; i < ExactSum::kLimbs; ++i) b[item * kWords + i] = sum.limbs()[i];
    b[item * kWords + ExactSum::kLimbs] |= a[item * kWords + ExactSum::kLimbs];
  }
}

// TESSERA_COLLECTIVES: "tree" posts collectives as point-to-point trees, "mpi" as MPI's
// non-blocking collectives. SMPI's are linear all-to-alls (P^2 messages per all-reduce:
// 13 s of real time per call on 128 simulated ranks), so trees are an SMPI build's default.
bool detail::tree_collectives_wanted() {
#ifdef TESSERA_SMPI
  constexpr bool kDefault = true;
#else
  constexpr bool kDefault = false;
#endif
  const char* env = std::getenv("TESSERA_COLLECTIVES");
  if (env == nullptr || *env == '\0') return kDefault;
  if (std::strcmp(env, "tree") == 0) return true;
  if (std::strcmp(env, "mpi") == 0) return false;
  throw std::invalid_argument(
      fmt::format("TESSERA_COLLECTIVES: expected 'mpi' or 'tree', got '{}'", env));
}

void detail::CommLane::iallreduce_sum(Handle h, ExactSum* sum, TaskAttributes attributes) {
  const Access access = readwrite(h);
  submit_ordered("allreduce_sum", {&access, 1}, attributes,
                 Operation{sum, exact_type_, exact_op_, 1, -1, 0, CommEvent::Kind::allreduce});
}

void detail::CommLane::iallreduce(Handle h, void* data, int count, MPI_Datatype type, MPI_Op op,
                                  TaskAttributes attributes) {
  const Access access = readwrite(h);
  submit_ordered("allreduce", {&access, 1}, attributes,
                 Operation{data, type, op, count, -1, 0, CommEvent::Kind::allreduce});
}

void detail::CommLane::ibarrier(Handle h, TaskAttributes attributes) {
  const Access access = readwrite(h);
  submit_ordered("barrier", {&access, 1}, attributes,
                 Operation{nullptr, MPI_BYTE, MPI_OP_NULL, 0, -1, 0, CommEvent::Kind::barrier});
}

void detail::CommLane::post_tree(const Operation& o, TaskContext& body, Pending& pending,
                                 const void* data, std::size_t bytes) {
  pending.event.bytes = bytes;
  pending.event.id = next_id();
  std::vector<std::byte> buffer(bytes);
  if (bytes > 0) std::memcpy(buffer.data(), data, bytes);
  TreeAllreduce::Combine combine;
  if (o.kind == CommEvent::Kind::allreduce && o.op == exact_op_) {
    combine = [](const std::byte* in, std::byte* inout) {
      int words = ExactSum::kLimbs + 1;
      MPI_Datatype type = MPI_INT64_T;
      exact_sum_op(const_cast<std::byte*>(in), inout, &words, &type);
    };
  } else if (o.kind == CommEvent::Kind::allreduce) {
    combine = [count = o.count, type = o.type, op = o.op](const std::byte* in, std::byte* inout) {
      check_mpi(MPI_Reduce_local(in, inout, count, type, op), "MPI_Reduce_local");
    };
  }
  const int tag = static_cast<int>(tree_sequence_++ % (static_cast<std::uint64_t>(tag_ub_) + 1));
  auto& entry = trees_.emplace_back();
  entry.tree = std::make_unique<TreeAllreduce>(tree_comm_, tag, std::move(buffer), combine);
  entry.out = pending.scratch ? static_cast<void*>(pending.scratch->data()) : o.data;
  if (!pending.token.valid()) pending.token = body.hold();
  entry.top = std::move(pending);
  announce(entry.top);
  step_tree(std::prev(trees_.end()));
}

void detail::CommLane::step_tree(std::list<TreeInFlight>::iterator it) {
  TreeInFlight& entry = *it;
  if (entry.tree->advance()) {
    const std::vector<std::byte>& result = entry.tree->data();
    if (!result.empty()) std::memcpy(entry.out, result.data(), result.size());
    entry.top.event.completed_ticks = base::fast_ticks();
    finish(entry.top, 0);
    trees_.erase(it);
    return;
  }
  // The step's messages are the lane's requests, so MPI_Waitsome covers them too; they
  // are the collective's inner workings, not operations of their own for the observers.
  const std::span<MPI_Request> step = entry.tree->requests();
  entry.outstanding = static_cast<int>(step.size());
  for (MPI_Request request : step) {
    requests_.push_back(request);
    pending_.push_back(Pending{CompletionToken(),
                               CommEvent{CommEvent::Kind::recv, -1, 0, 0, 0, "tree collective step",
                                         entry.top.event.posted_ticks},
                               nullptr, nullptr, &entry});
  }
}

}  // namespace tessera
