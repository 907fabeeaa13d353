#pragma once
// StateSums: exact per-variable sums of the adaptive mesh's state, as tasks (layer
// `driver`). Every block sums its cells in a fixed order (i, then j, then k), so a block's
// partial does not depend on where it lives; one task adds the blocks' partials exactly
// (ExactSum) and exact all-reduces give the global sums. Two rounds may be in flight, so a
// caller can wait for round r - 1 while round r and later tasks run (the AmrDriver's
// delayed sum check, AmrDriverOptions::sum_after_stages).

#include <cstdint>
#include <vector>

#include "tessera/amr/mesh.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/comm/exact_sum.hpp"

namespace tessera {

/// How a block's cells are summed.
enum class SumKind {
  plain,     ///< the sum of the cell values
  weighted,  ///< the sum of value * a weight of the cell's level, position and variable
};

class StateSums {
 public:
  /// Sums variables 0 .. vars - 1 of the mesh's blocks. Main thread.
  StateSums(Comm& comm, int vars);

  /// Starts round `round` (numbered 0, 1, 2, ...; round - 2 must have been waited for).
  /// Main thread.
  void begin_round(int round, const AmrMesh& mesh, SumKind kind);
  /// Submits the block tasks of variable group g of the current round (they read the
  /// group's interiors). Main thread.
  void submit_group(AmrMesh& mesh, int g);
  /// Submits the exact combination and the global reductions of the current round.
  void end_round();
  /// Waits until round `round` is reduced over all ranks; returns its sum per variable.
  const std::vector<ExactSum>& wait(int round);

 private:
  struct Round {
    SumKind kind = SumKind::plain;
    std::vector<double> partials;  // [local block][variable]
    std::int64_t tasks_done = 0;   // folded from the block tasks' reduction slots
    std::int64_t tasks_expected = 0;
    Handle partials_handle;
    std::vector<ExactSum> sums;
    Handle sums_handle;
  };
  Round& round(int r) { return rounds_[static_cast<std::size_t>(r % 2)]; }

  Comm& comm_;
  int vars_;
  Round rounds_[2];
  int current_ = -1;
};

}  // namespace tessera
