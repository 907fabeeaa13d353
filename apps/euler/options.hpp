#pragma once
// Options of the euler app (see docs/apps/euler.md), registered on the Session's parser and
// validated on every rank before any work.

#include <array>
#include <string>
#include <vector>

#include "tessera/driver/amr_driver.hpp"
#include "tessera/session.hpp"

namespace euler {

enum class Problem { sod, blast, sedov, kh, density_wave };
enum class Reconstruct { pcm, plm, weno5z };
/// The time integrator: VL2 (Athena++'s predictor-corrector) or Heun / SSP-RK2 (HARD's).
enum class Integrator { vl2, rk2 };
enum class Riemann { hllc, hlle, hll, hllc_pvrs };
/// How a block's stage is submitted: one task, or a task per piece (stage_tasks.cpp).
enum class StageTasks { fused, split };
/// The refinement indicator --refine-criterion selects (refinement.hpp).
enum class Criterion { density_pressure, pressure };

struct Options {
  int dim = 2;
  std::vector<int> cells_raw{128, 8};
  std::vector<int> block_cells_raw{16, 8};
  int max_level = 0;
  std::string problem_name = "sod";
  std::string axis_name = "x";
  double gamma = 0;  // 0: the problem's
  double cfl = 0.3;
  double t_end = 0;  // 0: the problem's
  std::string reconstruct_name = "plm";
  std::string riemann_name = "hllc";
  std::string integrator_name = "vl2";
  std::string boundary_name = "problem";
  double refine_above = 0.5;
  double derefine_below = 0.1;
  std::string criterion_name = "density-pressure";
  /// Block slots one rank may hold with --max-level > 0; 0 = automatic (memory_needed.hpp).
  long long max_blocks_per_rank = 0;
  std::string lineout;
  std::string stage_tasks_name = "auto";
  double blast_radius = 0.1;
  double blast_pressure = 0.1;
  double blast_pressure_ratio = 100;
  double sedov_energy = 1;
  double sedov_pressure = 1e-5;
  double kh_density_contrast = 1;
  /// The driver's shared run options (--max-cycles, --history, outputs, messages, replay,
  /// checkpoints: declare_amr_driver_options) and --adapt-every.
  tessera::AmrDriverOptions driver;
  // --scheme dg (dg_options.cpp): ADER-DG of degree --order.
  std::string scheme_name = "fv";
  int order = 3;

  // Derived by validate_options.
  Problem problem = Problem::sod;
  int axis = 0;
  Reconstruct reconstruct = Reconstruct::plm;
  Riemann riemann = Riemann::hllc;
  Integrator integrator = Integrator::vl2;
  Criterion criterion = Criterion::density_pressure;
  StageTasks stage_tasks = StageTasks::split;  ///< auto: split for blocks of >= 4096 cells
  std::array<int, 3> cells{1, 1, 1};           ///< level-0 cells of the domain (1 on a flat z)
  std::array<int, 3> block_cells{1, 1, 1};     ///< cells per block (1 on a flat z)
  /// Ghost layers the scheme reads: PLM two cells beyond a face, WENO5-Z three.
  int ghost() const { return reconstruct == Reconstruct::weno5z ? 3 : 2; }
};

void register_options(tessera::Session& session, Options& o);
/// --scheme dg's part of validate_options (dg_options.cpp): the DG problems, --order,
/// --riemann rusanov | hllc, and what the DG scheme cannot run yet.
void validate_dg_options(tessera::Session& session, Options& o);
/// Fails through session.fail (one line naming the option, exit 2 on every rank) on bad
/// input; fills the derived fields and the problem defaults (gamma, t_end).
void validate_options(tessera::Session& session, Options& o);

}  // namespace euler
