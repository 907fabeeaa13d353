#pragma once
// How the points of a task graph are spread over ranks: contiguous blocks, as Task Bench's
// MPI implementation does. Rank r owns points [floor(r W / n), floor((r + 1) W / n)).

namespace tessera::taskbench {

struct BlockDistribution {
  long width;  ///< points in all (the graph's max width)
  int ranks;

  /// First point of rank r (r may equal `ranks`: then it is `width`).
  long first(int r) const { return static_cast<long>(static_cast<long long>(r) * width / ranks); }
  /// One past the last point of rank r.
  long end(int r) const { return first(r + 1); }
  /// The rank owning `point`: the largest r with first(r) <= point.
  int owner(long point) const {
    return static_cast<int>(((static_cast<long long>(point) + 1) * ranks - 1) / width);
  }
};

}  // namespace tessera::taskbench
