#pragma once
// A field a solver declares to the adaptive-mesh driver (layer `driver`): a group of
// variables per cell with the metadata from which the driver decides how the field moves
// across level jumps, through split and merge, at reflecting walls and into checkpoints.

#include <memory>
#include <string>
#include <vector>

#include "tessera/amr/cell_transfer.hpp"

namespace tessera {

/// What a cell value measures, which decides split, merge and the ghosts across a level jump.
enum class Amount {
  /// A density (mass per volume): children get the parent's limited-linear prolongation,
  /// a parent gets the mean of its children; any ghost width.
  per_volume,
  /// An amount held by the cell (miniAMR): children get parent / 2^dim, a parent gets the
  /// sum of its children; one ghost layer.
  per_cell,
  /// Cells hold data the solver transfers itself (FieldSpec::transfer; e.g. DG elements):
  /// split, merge, the ghosts across a level jump and flux correction go through it. One
  /// ghost layer; with fluxes, the register holds transfer->face_flux_values() per face cell.
  custom,
};

/// One declared field: `components` variables per cell, stored as one variable group of the
/// mesh's blocks. Every field of a solver has the same number of components and the same
/// amount; the checkpointed (state) fields come before the scratch ones.
struct FieldSpec {
  std::string name;    ///< dataset name in checkpoints ("U")
  int components = 1;  ///< variables per cell
  Amount amount = Amount::per_volume;
  /// Fluxes through faces are corrected at coarse-fine faces (the stage that updates the
  /// field stores them in the driver's flux register; needs per_volume or custom).
  bool fluxes = false;
  int ghost = 1;  ///< ghost layers per face its stencils read (the mesh keeps the largest)
  /// Per component: the axis (0, 1, 2) of which it is the vector component, so a reflecting
  /// wall flips its sign; -1 (or an empty list) for scalars.
  std::vector<int> vector_axis;
  /// State carried through split, merge, migration and checkpoints; false for scratch
  /// (contents unspecified after any mesh change, never saved).
  bool checkpointed = true;
  /// Per component: its name in plot files ("rho", "mom_x"); empty: <name><component>
  /// (the name alone for one component).
  std::vector<std::string> component_names;
  /// With Amount::custom: the level transfer of one cell's `components` values (the same
  /// object for every field of the solver; the driver keeps it alive).
  std::shared_ptr<const CellTransfer> transfer;
};

}  // namespace tessera
