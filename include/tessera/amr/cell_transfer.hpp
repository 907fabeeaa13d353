#pragma once
// CellTransfer: how a solver's cell data crosses a level jump when the cells hold more than
// one value per variable (layer `amr`), e.g. the nodal values of a DG element's polynomials.
// An AmrMesh with LevelJumpRule::custom calls it for split, merge, the face ghosts across a
// level jump and, with flux correction, the coarse face's flux from the fine faces' fluxes
// and the coarse cell's correction.
//
// Every function works on one cell's values of one variable group, contiguous
// (`components` doubles: the group's variables in order), and is called from tasks on any
// thread, concurrently: implementations are const and keep their scratch per thread or on
// the stack. Calls are made in a fixed order (children 0, 1, ...), so a deterministic
// implementation gives the same bits on any ranks, threads and execution models.
//
// A child (or a fine face) is numbered by bits: bit a set = the upper half along the a-th
// refined axis (for a cell: axes x, y, z of the mesh, flat axes skipped: a 2-D cell has 4
// children, bits 0 and 1; for a face normal to axis n: its tangential axes in increasing
// order, t0 then t1, flat axes skipped).

namespace tessera {

class CellTransfer {
 public:
  virtual ~CellTransfer() = default;

  /// The values of child `child` of the cell `parent` (split, and a fine ghost cell whose
  /// neighbour is coarser). Writes `out` (components values; not aliasing parent).
  virtual void child_from_parent(const double* parent, int child, double* out) const = 0;

  /// parent += child `child`'s share of the parent cell (merge, and a coarse ghost cell whose
  /// neighbour is finer). The caller zeroes `parent` and adds the children in order 0, 1, ...
  virtual void add_child_to_parent(const double* child_values, int child, double* parent) const = 0;

  /// Values one face cell's flux holds in the flux register (FluxCorrection's `vars`).
  virtual int face_flux_values() const = 0;

  /// coarse += fine face `child`'s share of the coarse face's flux, on a face normal to
  /// `axis`; the caller zeroes `coarse` and adds the fine faces in order.
  virtual void add_fine_face_flux(int axis, int child, const double* fine,
                                  double* coarse) const = 0;

  /// The coarse cell's update for a change `flux_change` (new - old) of its flux through its
  /// face (axis, side) (side 1: the upper face); `coefficient` is dt / dx_axis of the cell
  /// (FluxCorrection::submit's). A finite-volume cell: cell -= (side ? 1 : -1) coefficient
  /// flux_change.
  virtual void correct_cell(int axis, int side, const double* flux_change, double coefficient,
                            double* cell) const = 0;
};

}  // namespace tessera
