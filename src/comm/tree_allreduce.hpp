#pragma once
// A non-blocking all-reduce made of point-to-point messages (recursive doubling), which the
// communication lane uses instead of MPI_Iallreduce / MPI_Ibarrier when asked to
// (TESSERA_COLLECTIVES=tree; the default of an SMPI build, whose non-blocking collectives
// are linear all-to-alls: P^2 messages per call). log2(P) message pairs per rank, plus
// one fold step each way when P is not a power of two.

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace tessera::detail {

/// One all-reduce in flight over `comm` (a communicator of its own: messages use `tag`,
/// distinct per all-reduce in flight). `combine(in, inout)` folds a peer's buffer into
/// this rank's; it must be commutative bitwise (integer sums, min, max, exact sums; IEEE
/// addition of two values is) so that both partners of a step end with equal buffers.
/// Empty data makes a barrier.
class TreeAllreduce {
 public:
  using Combine = std::function<void(const std::byte* in, std::byte* inout)>;
  TreeAllreduce(MPI_Comm comm, int tag, std::vector<std::byte> data, Combine combine);
  TreeAllreduce(const TreeAllreduce&) = delete;
  TreeAllreduce& operator=(const TreeAllreduce&) = delete;

  /// Posts the next step's messages; true once the reduction is complete (data() holds
  /// the result; no request in flight). Call first after construction, then each time
  /// every request of requests() has completed.
  bool advance();
  /// The requests of the current step (owned here; MPI sets completed ones to null).
  std::span<MPI_Request> requests() { return {requests_, static_cast<std::size_t>(posted_)}; }
  const std::vector<std::byte>& data() const { return data_; }

 private:
  enum class Phase { start, doubling, fold_out, done };
  // What the completed step's receive (into incoming_) does to data_.
  enum class Arrival { none, combine, replace };
  void post_send(int peer);
  void post_recv(int peer, Arrival arrival);

  MPI_Comm comm_;
  int tag_;
  int rank_ = 0;
  int size_ = 1;
  int pow2_ = 1;  // largest power of two <= size
  int mask_ = 1;  // doubling: the partner of this step is rank ^ mask_
  Phase phase_ = Phase::start;
  Arrival arrival_ = Arrival::none;
  std::vector<std::byte> data_;
  std::vector<std::byte> incoming_;
  Combine combine_;
  MPI_Request requests_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int posted_ = 0;
};

}  // namespace tessera::detail
