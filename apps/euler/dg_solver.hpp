#pragma once
// euler --scheme dg: ADER-DG of degree --order (apps/euler/dg/) on tessera's adaptive-mesh
// driver, one element per cell. The state U holds kNodeVars x (order + 1)^dim nodal values
// per cell (dg/ader_element.hpp's element layout: variable, then node, as the cell's
// components). One stage per cycle: the driver exchanges U's face ghosts (the neighbouring
// elements); each block's task runs the predictor of its elements and of the ghost elements
// on its faces (their face traces are all it needs of them), the volume terms, the face
// fluxes and their lifts. Skeleton blocks run at the execution model's skeleton priority
// (high under --exec dataflow with --priorities skeleton, the default; the session's
// option). With --max-level > 0 the elements cross level jumps through dg/element_transfer
// (the driver's Amount::custom) and the fluxes of blocks next to a jump go to the driver's
// flux register, which makes the coarse side conservative.

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dg/ader_element.hpp"
#include "dg/modal_indicator.hpp"
#include "dg/smooth_problems.hpp"
#include "options.hpp"
#include "problems.hpp"
#include "tessera/driver/amr_driver.hpp"

namespace euler {

/// The DG problems' geometry: the problem's box, periodic on every axis, or with --boundary
/// outflow | reflecting walls on every face.
Geometry dg_geometry(const Options& o);
/// U: kNodeVars (order + 1)^dim components per cell, Amount::custom (dg::ElementTransfer), one
/// ghost layer; with fluxes (corrected at level jumps) when --max-level > 0.
std::vector<tessera::FieldSpec> dg_fields(const Options& o);
/// One rank's bytes: the block slots' U and the per-thread scratch of a block's stage.
tessera::MemoryEstimate dg_memory_needed(const Options& o, const tessera::AmrDriverOptions& d,
                                         int ranks, int threads);

class DgSolver : public tessera::AmrSolver {
 public:
  DgSolver(tessera::Session& session, const Options& options);

  std::vector<tessera::FieldSpec> fields() const override { return dg_fields(options_); }
  std::vector<tessera::StageSpec> stages() const override { return {{0, 0, 1.0}}; }
  void blocks_changed(tessera::AmrDriver& driver, std::int32_t blocks) override;
  void submit_initial_state(tessera::AmrDriver& driver, const tessera::SolverBlock& b) override;
  /// --refine-criterion modal: the largest modal indicator of density (dg/modal_indicator)
  /// over the block's elements against --refine-above / --derefine-below; centre: the static
  /// refinement of the blocks that touch the domain's central box (half its width per axis).
  tessera::Refinement refinement(const tessera::SolverBlock& b) const override;
  tessera::StepEstimate time_step(const tessera::SolverBlock& b) const override;
  void submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) override;
  void describe_fault(tessera::AmrDriver& driver) override;
  void started(tessera::AmrDriver& driver, bool restarted) override;
  /// The start integrals travel in checkpoints, so that a restarted run's drift is the
  /// uninterrupted run's.
  nlohmann::json checkpoint_state() override;
  void restore_state(const nlohmann::json& state) override;
  void finished(tessera::AmrDriver& driver) override;
  nlohmann::json report(const tessera::AmrDriver& driver) const override;

 private:
  /// Per local block, written by its tasks only.
  struct BlockRecord {
    bool fault = false;
    std::array<int, 3> cell{};  ///< the first element with a bad state (-1: a ghost element)
    std::int64_t flops = 0;     ///< by the flop model, summed over the cycles
  };
  /// Collective, every task done: the integrals of the conserved variables over the domain
  /// (the elements' Gauss quadrature), exact sums: the same bits on any ranks and threads.
  dg::State integrals(tessera::AmrDriver& driver);
  /// True if face (axis, side) of block b lies on a non-periodic domain boundary.
  bool on_wall(const tessera::SolverBlock& b, int axis, int side) const;
  /// The stage of one block (runs in its task).
  /// With a flux register (a block next to a level jump), stores its faces' fluxes there.
  void advance_block(const tessera::SolverBlock& b, double dt, BlockRecord& record,
                     double* flux_register, const tessera::FluxRegister* layout) const;

  tessera::Session& session_;
  Options options_;
  Geometry geo_;
  dg::SmoothProblem problem_;
  dg::FaceFlux flux_;
  std::unique_ptr<const dg::AderOperators> ops_;
  dg::ModalIndicator indicator_;
  std::vector<BlockRecord> records_;
  mutable std::vector<std::array<int, 3>> scan_faults_;  // per block; -1: none
  std::int64_t retired_flops_ = 0;                       // of blocks the rank no longer holds
  dg::State start_{}, end_{};
  double l1_rho_ = -1, l2_rho_ = -1, flops_per_s_ = 0;
  std::int64_t global_flops_ = 0;
};

}  // namespace euler
