#include "element_transfer.hpp"

#include <cstddef>
#include <vector>

#include "tensor_ops.hpp"

namespace euler::dg {

namespace {

using Size = std::size_t;

// Per-thread scratch of the projections (2 n^dim values).
double* scratch(int nodes) {
  thread_local std::vector<double> s;
  if (s.size() < 2 * static_cast<Size>(nodes)) s.resize(2 * static_cast<Size>(nodes));
  return s.data();
}

}  // namespace

ElementTransfer::ElementTransfer(int order, int dim)
    : ops_(order),
      dim_(dim),
      nodes_(tensor_size(order + 1, dim)),
      face_nodes_(tensor_size(order + 1, dim - 1)),
      face_values_(kNodeVars * tensor_size(order + 1, dim - 1)),
      projection_(level_projection(ops_.basis)) {}

void ElementTransfer::child_from_parent(const double* parent, int child, double* out) const {
  double* s = scratch(nodes_);
  const auto nodes = static_cast<Size>(nodes_);
  for (Size v = 0; v < kNodeVars; ++v)
    project_to_child(projection_, dim_, child, parent + v * nodes, out + v * nodes, s);
}

void ElementTransfer::add_child_to_parent(const double* child_values, int child,
                                          double* parent) const {
  double* s = scratch(nodes_);
  const auto nodes = static_cast<Size>(nodes_);
  for (Size v = 0; v < kNodeVars; ++v)
    dg::add_child_to_parent(projection_, dim_, child, child_values + v * nodes, parent + v * nodes,
                            s);
}

void ElementTransfer::add_fine_face_flux(int /*axis*/, int child, const double* fine,
                                         double* coarse) const {
  double* s = scratch(nodes_);
  const auto nodes = static_cast<Size>(face_nodes_);
  for (Size v = 0; v < kNodeVars; ++v)
    dg::add_child_to_parent(projection_, dim_ - 1, child, fine + v * nodes, coarse + v * nodes, s);
}

void ElementTransfer::correct_cell(int axis, int side, const double* flux_change,
                                   double coefficient, double* cell) const {
  add_face_term(ops_, dim_, axis, side, flux_change, coefficient, cell);
}

}  // namespace euler::dg
