#pragma once
// Options of the radhydro app (docs/apps/radhydro.md), declared in the Session's
// OptionRegistry with the shared vocabulary (docs/options.md).

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "problems.hpp"
#include "tessera/io/checkpoint_options.hpp"
#include "tessera/session.hpp"

namespace radhydro {

struct Options {
  int dim = 1;
  std::vector<int> cells;        // default: the problem's per dimension
  std::vector<int> block_cells;  // default: min(cells, 64 / 32 / 16 per axis)
  std::string problem = "sod";
  std::string axis_name = "x";
  int axis = 0;
  double gamma = 1.4;
  double mu = std::nan("");  // NaN: the problem's
  double cfl = 0.3;
  double t_end = 0;  // 0: the problem's
  int max_cycles = 0;
  std::vector<std::string> boundary_names{"problem"};
  std::array<Boundary, 6> boundary{};
  std::string radiation = "problem";
  bool radiation_on = false;
  double kappa = std::nan("");  // NaN: the problem's
  double max_dt = 0;            // 0: the problem's (none for most)
  std::string rad_solver = "jacobi";
  int rad_sweeps = 0;  // 0: to --rad-tolerance
  double rad_tolerance = 1e-10;
  int rad_max_iterations = 10000;
  double rad_theta = 0.5;
  std::string coupling = "split";  // split | imex (docs/apps/radhydro.md, "Coupling")
  std::string flux_limiter = "problem";
  std::string exchange = "problem";
  bool exchange_on = true;
  std::string radiation_force = "problem";
  bool radiation_force_on = false;
  bool limiter_on = true;
  std::string face_state = "hard";
  std::string lineout;
  int progress_every = 50;
  bool replay = false;
  tessera::CheckpointOptions checkpoint;
};

/// Declares the options (before Session::start). The problem-defining ones are
/// OptionRole::problem: a restart takes them from the checkpoint.
void declare_options(tessera::OptionRegistry& registry, Options& o);

/// Checks the options and fills the defaults (after start and after a restart took the
/// problem options over). On bad input prints one line naming the option and exits 2 on
/// every rank (Session::fail).
void validate(tessera::Session& session, Options& o);

}  // namespace radhydro
