#pragma once
// ADER-DG for the Euler equations on a uniform periodic mesh of elements: the reference
// the adaptive driver's DG scheme is checked against, and what the unit tests measure the
// order of convergence, conservation and free-stream preservation on. Serial; one object
// per thread.

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "ader_element.hpp"
#include "smooth_problems.hpp"

namespace euler::dg {

struct PeriodicMeshSpec {
  int dim = 2;                    ///< 2 or 3
  int order = 3;                  ///< polynomial degree, kMinOrder..kMaxOrder
  std::array<int, 3> elements{};  ///< per axis (axes >= dim: 1)
  Box box;                        ///< the domain
  double gamma = kSmoothGamma;
  FaceFlux flux = FaceFlux::rusanov;
};

class PeriodicMesh {
 public:
  /// Throws std::invalid_argument for a dimension, order or element count out of range.
  explicit PeriodicMesh(const PeriodicMeshSpec& spec);

  /// Sets every element to the L2 projection of f (order + 3 Gauss points per axis).
  void fill(const std::function<State(const std::array<double, 3>&)>& f);

  /// The global stable step for Courant number cfl (ader_element.hpp's rule); 0 if a node is
  /// not admissible.
  double stable_dt(double cfl) const;

  /// One ADER-DG step of dt (predictor of every element, volume terms, then the fluxes of
  /// every face). Returns false, leaving the state half-updated, if a predicted state is not
  /// admissible.
  bool step(double dt);

  /// Integrals of the conserved variables over the domain.
  State totals() const;

  /// Means over the domain of |rho_h - rho| and sqrt of the mean of (rho_h - rho)^2, with
  /// rho = exact(x)[0], integrated with order + 3 Gauss points per axis.
  struct Errors {
    double l1 = 0, l2 = 0;
  };
  Errors density_errors(const std::function<State(const std::array<double, 3>&)>& exact) const;

  /// The element data, element e at e * element_size(), elements with axis 0 fastest.
  const std::vector<double>& data() const { return u_; }
  std::vector<double>& data() { return u_; }
  std::size_t element_size() const { return element_size_; }
  std::int64_t element_count() const { return elements_; }

  /// Flops of the steps so far by the flop model (ader_element.hpp).
  std::int64_t flops() const { return flops_; }

 private:
  std::array<double, 3> node_position(std::int64_t element, int node) const;
  std::int64_t neighbour(std::int64_t element, int axis, int side) const;

  PeriodicMeshSpec spec_;
  AderOperators ops_;
  AderWorkspace ws_;
  std::array<double, 3> dx_{};
  std::int64_t elements_ = 0;
  std::size_t element_size_ = 0, trace_size_ = 0;
  std::vector<double> u_, traces_, q_avg_, flux_avg_, face_flux_;
  std::int64_t flops_ = 0;
};

}  // namespace euler::dg
