#pragma once
// miniamr as a solver on the adaptive-mesh driver: miniAMR's cycle (per stage and variable
// group: ghost exchange, 7- or 27-point stencil; sums every --checksum_freq stages validated
// one round later), its object rules as the driver's marks, its report. The driver runs the
// loop, adaptation, repartition, checkpoints, restart and plot files.

#include <cstdint>
#include <vector>

#include "options.hpp"
#include "tessera/driver/amr_driver.hpp"

namespace miniamr {

/// Block counts after one refinement step.
struct RefinementRecord {
  int timestep = 0;
  std::vector<std::int64_t> levels;
  std::int64_t total = 0;
};

/// What a checkpoint stores of the solver and a restart restores: the run's history.
struct History {
  std::vector<double> reference_sums;  // last validated sum per variable
  std::vector<tessera::RefineObject> objects;
  std::vector<std::int64_t> blocks_per_step;
  std::vector<RefinementRecord> refinements;
  std::int64_t checksums = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RefinementRecord, timestep, levels, total)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(History, reference_sums, objects, blocks_per_step, refinements,
                                   checksums)

class Solver final : public tessera::AmrSolver {
 public:
  Solver(tessera::Session& session, const Options& options);

  std::vector<tessera::FieldSpec> fields() const override;
  std::vector<tessera::StageSpec> stages() const override;
  void submit_initial_state(tessera::AmrDriver& driver, const tessera::SolverBlock& b) override;
  tessera::Refinement refinement(const tessera::SolverBlock&) const override {
    return tessera::Refinement::keep;  // marks() decides
  }
  tessera::StepEstimate time_step(const tessera::SolverBlock&) const override { return {1, false}; }
  void submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) override;
  void after_stage(tessera::AmrDriver& driver, int stage) override;
  void check_sums(tessera::AmrDriver& driver, int cycle,
                  std::span<const tessera::ExactSum> sums) override;
  std::optional<std::vector<std::int8_t>> marks(tessera::AmrDriver& driver) override;
  void adapted(tessera::AmrDriver& driver) override;
  nlohmann::json checkpoint_state() override { return h_; }
  void restore_state(const nlohmann::json& state) override { state.get_to(h_); }
  void finished(tessera::AmrDriver& driver) override;
  nlohmann::json report(const tessera::AmrDriver& driver) const override;

 private:
  void print_report(const tessera::AmrDriver& driver) const;

  tessera::Session& session_;
  Options options_;
  History h_;
  bool validation_failed_ = false;
  std::vector<std::string> var_sums_hex_;
  double checksum_ = 0;
  double start_seconds_ = 0, total_seconds_ = 0;
};

}  // namespace miniamr
