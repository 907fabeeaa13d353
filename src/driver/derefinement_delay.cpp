#include "tessera/driver/derefinement_delay.hpp"

#include <array>
#include <map>

#include "tessera/base/check_mpi.hpp"

namespace tessera {

void DerefinementDelay::blocks_changed(const AmrMesh& mesh, MPI_Comm comm) {
  // Every rank's running counts (blocks may have moved between ranks): level, origin, count.
  std::vector<std::int64_t> mine;
  for (const Count& c : counts_)
    if (c.checks > 0)
      mine.insert(mine.end(), {c.place.level, c.place.origin[0], c.place.origin[1],
                               c.place.origin[2], c.checks});
  int ranks = 1;
  TESSERA_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), starts(lengths.size());
  TESSERA_MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm));
  for (std::size_t r = 1; r < lengths.size(); ++r) starts[r] = starts[r - 1] + lengths[r - 1];
  std::vector<std::int64_t> all(static_cast<std::size_t>(starts.back() + lengths.back()));
  TESSERA_MPI_CHECK(MPI_Allgatherv(mine.data(), length, MPI_INT64_T, all.data(), lengths.data(),
                                   starts.data(), MPI_INT64_T, comm));
  std::map<std::array<std::int64_t, 4>, int> known;
  for (std::size_t e = 0; e + 5 <= all.size(); e += 5)
    known[{all[e], all[e + 1], all[e + 2], all[e + 3]}] = static_cast<int>(all[e + 4]);
  counts_.assign(static_cast<std::size_t>(mesh.local_block_count()), Count{});
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    Count& c = counts_[static_cast<std::size_t>(b)];
    c.place = mesh.place(b);
    const auto it =
        known.find({c.place.level, c.place.origin[0], c.place.origin[1], c.place.origin[2]});
    if (it != known.end()) c.checks = it->second;
  }
}

std::int8_t DerefinementDelay::delayed(LocalBlockIndex b, std::int8_t wish) const {
  Count& c = counts_[static_cast<std::size_t>(b)];
  if (wish >= 0 || c.place.level == 0) {
    c.checks = 0;
    return wish < 0 ? 0 : wish;
  }
  ++c.checks;
  return c.checks >= checks_ ? -1 : 0;
}

}  // namespace tessera
