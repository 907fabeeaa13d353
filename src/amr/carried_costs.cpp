#include "tessera/amr/carried_costs.hpp"

#include <stdexcept>

#include "tessera/base/check_mpi.hpp"

namespace tessera {

std::vector<double> costs_after_adapt(std::span<const double> costs,
                                      std::span<const AdaptSource> sources, int children) {
  std::vector<double> after(sources.size(), 0.0);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const AdaptSource& src = sources[i];
    const int family = src.kind == AdaptSource::Kind::merged ? children : 1;
    if (src.old_index < 0 || static_cast<std::size_t>(src.old_index) + family > costs.size())
      throw std::invalid_argument("costs_after_adapt: a source names a block outside the costs");
    if (src.kind != AdaptSource::Kind::merged) {
      after[i] = costs[static_cast<std::size_t>(src.old_index)];
      continue;
    }
    double sum = 0;
    for (int c = 0; c < children; ++c) sum += costs[static_cast<std::size_t>(src.old_index + c)];
    after[i] = sum / children;
  }
  return after;
}

std::vector<double> costs_of_rank(std::span<const double> global_costs,
                                  std::span<const std::int64_t> offsets, int rank) {
  if (rank < 0 || static_cast<std::size_t>(rank) + 1 >= offsets.size() ||
      offsets.back() != static_cast<std::int64_t>(global_costs.size()) ||
      offsets[static_cast<std::size_t>(rank)] > offsets[static_cast<std::size_t>(rank) + 1])
    throw std::invalid_argument("costs_of_rank: the offsets do not cover the costs");
  return {global_costs.begin() + offsets[static_cast<std::size_t>(rank)],
          global_costs.begin() + offsets[static_cast<std::size_t>(rank) + 1]};
}

std::vector<double> costs_after_partition(MPI_Comm comm, std::span<const std::int64_t> old_offsets,
                                          std::span<const std::int64_t> new_offsets,
                                          std::span<const double> costs) {
  int ranks = 0, me = 0;
  TESSERA_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  TESSERA_MPI_CHECK(MPI_Comm_rank(comm, &me));
  const auto n = static_cast<std::size_t>(ranks);
  if (old_offsets.size() != n + 1 || new_offsets.size() != n + 1 || old_offsets.front() != 0 ||
      new_offsets.front() != 0 || old_offsets.back() != new_offsets.back() ||
      static_cast<std::int64_t>(costs.size()) !=
          old_offsets[static_cast<std::size_t>(me) + 1] - old_offsets[static_cast<std::size_t>(me)])
    throw std::invalid_argument("costs_after_partition: offsets and costs do not agree");
  // Every rank gathers the whole curve's costs: a few doubles per block, once per
  // repartition, and no plan of who sends what to whom.
  std::vector<int> counts(n), displs(n);
  for (std::size_t r = 0; r < n; ++r) {
    counts[r] = static_cast<int>(old_offsets[r + 1] - old_offsets[r]);
    displs[r] = static_cast<int>(old_offsets[r]);
  }
  std::vector<double> all(static_cast<std::size_t>(old_offsets.back()));
  TESSERA_MPI_CHECK(MPI_Allgatherv(costs.data(), static_cast<int>(costs.size()), MPI_DOUBLE,
                                   all.data(), counts.data(), displs.data(), MPI_DOUBLE, comm));
  return costs_of_rank(all, new_offsets, me);
}

}  // namespace tessera
