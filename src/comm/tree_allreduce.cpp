#include "comm/tree_allreduce.hpp"

#include "tessera/base/check_mpi.hpp"
#include "tessera/runtime/compute_hook.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

namespace tessera::detail {

TreeAllreduce::TreeAllreduce(MPI_Comm comm, int tag, std::vector<std::byte> data, Combine combine)
    : comm_(comm),
      tag_(tag),
      data_(std::move(data)),
      incoming_(data_.size()),
      combine_(std::move(combine)) {
  if (data_.size() > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument("TreeAllreduce: buffer exceeds one MPI message");
  }
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  while (pow2_ * 2 <= size_) pow2_ *= 2;
}

void TreeAllreduce::post_send(int peer) {
  flush_compute_charges();  // the step's messages leave when the charged work ends
  check_mpi(MPI_Isend(data_.data(), static_cast<int>(data_.size()), MPI_BYTE, peer, tag_, comm_,
                      &requests_[posted_++]),
            "MPI_Isend");
}

void TreeAllreduce::post_recv(int peer, Arrival arrival) {
  flush_compute_charges();
  check_mpi(MPI_Irecv(incoming_.data(), static_cast<int>(incoming_.size()), MPI_BYTE, peer, tag_,
                      comm_, &requests_[posted_++]),
            "MPI_Irecv");
  arrival_ = arrival;
}

// Ranks pow2_.. fold their data into rank - pow2_ first and get the result back last;
// ranks 0..pow2_-1 combine by recursive doubling. A step's send reads data_ while it is
// in flight, so data_ changes only once the whole step has completed.
bool TreeAllreduce::advance() {
  if (arrival_ == Arrival::combine && !data_.empty()) combine_(incoming_.data(), data_.data());
  if (arrival_ == Arrival::replace) std::copy(incoming_.begin(), incoming_.end(), data_.begin());
  arrival_ = Arrival::none;
  posted_ = 0;
  const int extra = size_ - pow2_;
  switch (phase_) {
    case Phase::start:
      if (size_ == 1) {
        phase_ = Phase::done;
        return true;
      }
      if (rank_ >= pow2_) {
        post_send(rank_ - pow2_);
        post_recv(rank_ - pow2_, Arrival::replace);
        phase_ = Phase::fold_out;
        return false;
      }
      phase_ = Phase::doubling;
      if (rank_ < extra) {
        post_recv(rank_ + pow2_, Arrival::combine);
        return false;
      }
      [[fallthrough]];
    case Phase::doubling:
      if (mask_ < pow2_) {
        const int partner = rank_ ^ mask_;
        mask_ *= 2;
        post_send(partner);
        post_recv(partner, Arrival::combine);
        return false;
      }
      phase_ = Phase::fold_out;
      if (rank_ < extra) {
        post_send(rank_ + pow2_);
        return false;
      }
      [[fallthrough]];
    case Phase::fold_out:
      phase_ = Phase::done;
      return true;
    case Phase::done:
      break;
  }
  throw std::logic_error("TreeAllreduce::advance after completion");
}

}  // namespace tessera::detail
