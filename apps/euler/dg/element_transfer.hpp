#pragma once
// The level transfer of euler's DG elements (tessera::CellTransfer): the driver's split,
// merge, ghosts across level jumps and flux correction for cells that hold kNodeVars x
// n^dim nodal values. Children and fine faces are the exact L2 projections of
// level_projection.hpp; the coarse face's flux is the L2 projection of the fine faces'
// fluxes (the integral of every coarse test function against them, so the corrected scheme
// conserves to round-off), and the correction of a coarse element is its face term (lift)
// of the flux change.

#include "ader_element.hpp"
#include "level_projection.hpp"
#include "tessera/amr/cell_transfer.hpp"

namespace euler::dg {

class ElementTransfer final : public tessera::CellTransfer {
 public:
  /// The transfer of elements of degree `order` in `dim` dimensions.
  ElementTransfer(int order, int dim);

  void child_from_parent(const double* parent, int child, double* out) const override;
  void add_child_to_parent(const double* child_values, int child, double* parent) const override;
  int face_flux_values() const override { return face_values_; }
  void add_fine_face_flux(int axis, int child, const double* fine, double* coarse) const override;
  void correct_cell(int axis, int side, const double* flux_change, double coefficient,
                    double* cell) const override;

 private:
  AderOperators ops_;
  int dim_;
  int nodes_, face_nodes_, face_values_;
  LevelProjection projection_;
};

}  // namespace euler::dg
