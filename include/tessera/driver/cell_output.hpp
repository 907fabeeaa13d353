#pragma once
// Cell data of an adaptive mesh written for people (layer `driver`): a CSV line-out through
// the domain centre of quantities the solver computes from a cell's variables (plot files
// of whole fields: tessera/io/plot_file.hpp, written by AmrDriver). Collective; rank 0 writes, atomically; every
// task touching the blocks must be done.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tessera/amr/mesh.hpp"
#include "tessera/driver/domain.hpp"
#include "tessera/session.hpp"

namespace tessera {

/// A quantity per cell: `components` values (1: scalar, 3: vector) from the cell's
/// variables of the plotted group (variable v at u[v * sv]).
struct CellQuantity {
  std::string name;
  int components = 1;
  std::function<void(const double* u, std::size_t sv, double* out)> value;
};

/// CSV line-out along `axis` through the domain centre: header `<axis>,<quantities>` (vector
/// components named <name>x, <name>y, <name>z), one row per leaf cell the line crosses in
/// increasing coordinate (the finest wherever the mesh is refined), values as %.17g.
void write_cell_lineout(Session& session, AmrMesh& mesh, const Domain& domain, int group,
                        const std::vector<CellQuantity>& quantities, int axis,
                        const std::string& path);

/// Gathers rows of doubles from every rank onto rank 0, in rank order (empty elsewhere).
std::vector<double> gather_to_root(MPI_Comm comm, const std::vector<double>& values);

}  // namespace tessera
