#pragma once
// A local block of the adaptive mesh as the driver's callbacks see it (layer `driver`).

#include <array>
#include <cstdint>

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/forest.hpp"

namespace tessera {

/// One local block as a callback sees it. `data` holds every field (field f is variable
/// group f of `shape`); `dx` is the cell size at the block's level. Valid until the mesh
/// changes.
struct SolverBlock {
  std::int32_t index = 0;  ///< local block index
  const BlockShape* shape = nullptr;
  const BlockPlace* place = nullptr;
  double* data = nullptr;
  std::array<double, 3> dx{};
};

/// Calls f(g, c) for every interior cell of block b, in i, j, k order (k fastest): g is
/// the cell's global index among the cells of the block's level, c the offset of its
/// variable 0 in b.data (variable v at c + v * shape->layout().stride_var()).
template <class F>
void for_each_cell(const SolverBlock& b, F&& f) {
  const BlockShape& s = *b.shape;
  const BlockLayout l = s.layout();
  std::array<std::int64_t, 3> base{};
  // origin / length counts level-L blocks from the domain's lower corner.
  for (int a = 0; a < 3; ++a) base[a] = b.place->origin[a] / b.place->length() * s.cells[a];
  for (int i = 0; i < s.cells[0]; ++i)
    for (int j = 0; j < s.cells[1]; ++j)
      for (int k = 0; k < s.cells[2]; ++k)
        f(std::array<std::int64_t, 3>{base[0] + i, base[1] + j, base[2] + k},
          static_cast<std::size_t>(l.index(0, i, j, k)));
}

}  // namespace tessera
