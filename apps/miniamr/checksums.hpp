#pragma once
// Reproducible per-variable checksums of the mesh, as tasks: every block sums its cells
// (in a fixed order, so a block's partial sum does not depend on where it lives), one task
// adds the blocks' partials exactly (ExactSum) and the global sums are exact all-reduces.
// Rounds are kept in a ring of two so that the driver can validate round r - 1 while the
// tasks of round r (and later stages) run: the paper's delayed validation.

#include <cstdint>
#include <vector>

#include "tessera/amr/mesh.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/comm/exact_sum.hpp"

namespace miniamr {

/// How a block's cells are summed.
enum class SumKind {
  plain,     ///< sum of the cell values (miniAMR's checksum)
  weighted,  ///< sum of value * a weight depending on the cell's global position and variable
};

class Checksums {
 public:
  Checksums(tessera::Comm& comm, int num_vars);

  /// Starts round `round` (rounds are numbered 0, 1, 2, ...; round r - 2 must have been
  /// waited for). Main thread.
  void begin_round(int round, const tessera::AmrMesh& mesh, SumKind kind);
  /// Submits the block tasks of variable group g of the current round.
  void submit_group(tessera::AmrMesh& mesh, int g);
  /// Submits the exact combination and the global reductions of the current round.
  void end_round();
  /// Waits until round `round` is globally reduced; returns its sum per variable.
  const std::vector<tessera::ExactSum>& wait(int round);

 private:
  struct Round {
    SumKind kind = SumKind::plain;
    std::vector<double> partials;  // [local block][variable]
    std::int64_t tasks_done = 0;   // folded from the block tasks' reduction slots
    std::int64_t tasks_expected = 0;
    tessera::Handle partials_handle;
    std::vector<tessera::ExactSum> sums;
    tessera::Handle sums_handle;
  };
  Round& round(int r) { return rounds_[static_cast<std::size_t>(r % 2)]; }

  tessera::Comm& comm_;
  int num_vars_;
  Round rounds_[2];
  int current_ = -1;
};

}  // namespace miniamr
