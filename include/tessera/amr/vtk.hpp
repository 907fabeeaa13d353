#pragma once
// Block layout of a forest as a legacy VTK file (layer `amr`), for ParaView and
// tools/plot_mesh.py: an unstructured grid with one hexahedron per block, in unit-cube
// coordinates, with cell data "level" and "rank" (the owner).

#include <string>

#include "tessera/amr/forest.hpp"

namespace tessera {

/// Collective. Rank 0 writes `path` atomically (temporary name, then rename); the other
/// ranks send it their blocks. Throws std::runtime_error naming the path if it cannot be
/// written (on rank 0).
void write_forest_vtk(const Forest& forest, const std::string& path);

}  // namespace tessera
