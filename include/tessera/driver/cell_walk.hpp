#pragma once
// Walking the interior cells of an adaptive mesh's local blocks with their global indices
// (layer `driver`): for totals, line-outs and plot files. Main thread, no task in flight on
// the blocks.

#include <array>
#include <cstdint>

#include "tessera/amr/mesh.hpp"

namespace tessera {

/// Calls f(level, g, u, sv) for every interior cell of every local block, blocks in local
/// order and cells in i, j, k order (k fastest): g is the cell's global index among the
/// cells of its block's level, u points at the cell's first variable of group `group`
/// (variable v of the group at u[v * sv]).
template <class F>
void for_each_cell(AmrMesh& mesh, int group, F&& f) {
  const BlockShape& s = mesh.shape();
  const BlockLayout& l = mesh.layout();
  const auto sv = static_cast<std::size_t>(l.stride_var());
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    const BlockPlace& place = mesh.place(b);
    std::array<std::int64_t, 3> base{};
    // origin / length counts level-L blocks from the domain's lower corner.
    for (int a = 0; a < 3; ++a) base[a] = place.origin[a] / place.length() * s.cells[a];
    const double* data = mesh.data(b);
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j)
        for (int k = 0; k < s.cells[2]; ++k)
          f(place.level, std::array<std::int64_t, 3>{base[0] + i, base[1] + j, base[2] + k},
            data + l.index(group * s.group_size, i, j, k),
            sv);
  }
}

}  // namespace tessera
