#pragma once
// The euler solver on tessera's adaptive-mesh driver (tessera/driver/amr_driver.hpp). Per
// cycle (VL2): stage 0 exchanges the ghosts of U and computes U* = U - dt/2 div F(U) with
// PCM fluxes; stage 1 exchanges the ghosts of U* and computes U = U - dt div F(U*) with the
// chosen reconstruction (RK2: U* = U - dt div F(U), U = (U + (U* - dt div F(U*))) / 2, both
// with the chosen reconstruction); the driver corrects the fluxes at coarse-fine faces, reduces the
// CFL step, adapts the mesh with the --refine-criterion of refinement.hpp, writes
// checkpoints of U and replays the recorded cycle.
// A block's stage is one task (--stage-tasks fused) or a task per piece (split; auto
// splits blocks of at least kSplitStageCells cells) on per-block buffers: primitives
// (reads U or U* and its face ghosts, writes W), one flux task per axis (reads W, writes
// that axis's term dt/dx dF and its two faces' fluxes; the axes run concurrently), the
// update (reads the terms, writes the new state and the flux register). The next
// exchange of a field waits only for the primitive task.

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hydro.hpp"
#include "options.hpp"
#include "problems.hpp"
#include "refinement.hpp"
#include "tessera/driver/amr_driver.hpp"
#include "tessera/io/checkpoint_reader.hpp"

namespace euler {

/// U (the state) and U* (the stage's scratch), kVars variables each.
std::vector<tessera::FieldSpec> declared_fields(int ghost);
/// The driver's options from euler's validated options; `problem`: the registry's problem
/// options, which a checkpoint stores.
tessera::AmrDriverOptions driver_options(const Options& o, const Geometry& geo, int ranks,
                                         nlohmann::json problem);
/// One rank's bytes (validated options) for the driver's block slots.
tessera::MemoryEstimate memory_needed(const Options& o, const tessera::AmrDriverOptions& d,
                                      int ranks, int threads);

class Solver : public tessera::AmrSolver {
 public:
  Solver(tessera::Session& session, const Options& options);

  std::vector<tessera::FieldSpec> fields() const override {
    return declared_fields(options_.ghost());
  }
  std::vector<tessera::StageSpec> stages() const override;
  void blocks_changed(tessera::AmrDriver& driver, std::int32_t blocks) override;
  void submit_initial_state(tessera::AmrDriver& driver, const tessera::SolverBlock& b) override;
  tessera::Refinement refinement(const tessera::SolverBlock& b) const override;
  tessera::StepEstimate time_step(const tessera::SolverBlock& b) const override;
  void submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) override;
  void describe_fault(tessera::AmrDriver& driver) override;
  std::string history_columns() const override { return "mass,mom_x,mom_y,mom_z,energy"; }
  void finished(tessera::AmrDriver& driver) override;
  nlohmann::json report(const tessera::AmrDriver& driver) const override;

 private:
  tessera::Session& session_;
  Options options_;
  Geometry geo_;
  // Per local block, written by its tasks: the stage's first bad cell, the scan's.
  std::vector<CellFault> stage_faults_[2];
  mutable std::vector<CellFault> scan_faults_;
  // Split stages, per local block: the primitives W (kVars variables, BlockShape layout),
  // each axis's term (kVars x interior cells) and, with --max-level > 0, the fluxes of its
  // two faces (the flux register's part for that axis). Allocated once per block slot, kept
  // while the rank holds that many blocks (a recorded cycle's pointers stay valid).
  struct StageBuffers {
    std::vector<double> w;
    std::array<std::vector<double>, 3> term, faces;
    tessera::Handle w_handle;
    std::array<tessera::Handle, 3> term_handles;
  };
  std::vector<StageBuffers> stage_buffers_;
  double sod_l1_ = -1;
  std::array<double, 2> wave_errors_{-1, -1};  // density-wave: l1_rho, l2_rho
  double sedov_radius_ = -1, sedov_analytic_ = -1;
};

}  // namespace euler
