#pragma once
// The euler solver on tessera's adaptive-mesh driver (tessera/driver/amr_driver.hpp): the
// fields U and U*, a cycle's two stages (VL2 or RK2; docs/apps/euler.md, "Scheme") submitted
// as one task per block or split into primitive, per-axis flux and update tasks on
// per-block buffers (stage_tasks.cpp), the --refine-criterion of refinement.hpp, the CFL
// scan, the fault line and the problem's figures in the report.

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
