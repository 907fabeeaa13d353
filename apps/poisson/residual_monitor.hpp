#pragma once
// The convergence check of the poisson solvers: the relative residual ||f - A u|| / ||f||
// of the finest grid, summed exactly over all unknowns of all ranks, with its history.

#include <chrono>
#include <vector>

#include "grid_level.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/session.hpp"

namespace tessera::poisson {

/// One residual check: after `iteration` iterations (V-cycles for multigrid), `seconds`
/// after the solve started (rank 0's clock), the relative residual.
struct HistoryPoint {
  int iteration = 0;
  double seconds = 0;
  double residual = 0;
};

/// Measures the finest level's residual. Each check submits the residual tasks and the
/// global exact sum and waits for that sum only (earlier sweeps finish first because the
/// residual reads u); every rank computes the same bits, so every rank takes the same
/// stop decision. Main thread only.
class ResidualMonitor {
 public:
  /// Computes ||f|| over the unknowns (a collective: call on every rank). Throws
  /// std::runtime_error if f is zero or not finite.
  ResidualMonitor(Session& session, GridLevel& finest);

  /// Starts the solve clock that history times are measured from.
  void start_clock() { start_ = std::chrono::steady_clock::now(); }
  /// Checks the residual after `iteration` iterations, prints a progress line and records
  /// it. Throws std::runtime_error naming the iteration if the residual is not finite.
  double check(int iteration);
  const std::vector<HistoryPoint>& history() const { return history_; }
  /// Continues the history of a restarted solve (its checks before the checkpoint).
  void restore_history(std::vector<HistoryPoint> earlier) { history_ = std::move(earlier); }

 private:
  static void add_exact(ExactSum& total, const ExactSum& part) { total.add(part); }

  Session& session_;
  GridLevel& finest_;
  ExactSum sum_;
  Handle handle_;
  double rhs_norm_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::vector<HistoryPoint> history_;
};

/// The error of u against the exact solution over all unknowns of all ranks.
struct ErrorNorms {
  double l2 = 0;   ///< sqrt(sum (u - exact)^2 / unknowns)
  double max = 0;  ///< max |u - exact|
};

/// Measures the finest level's error (collective; waits for the result).
ErrorNorms measure_error(Session& session, GridLevel& finest, const SineProblem& problem);

/// The exact sum of u over all cells of the finest level (collective; waits).
double measure_checksum(Session& session, GridLevel& finest);

}  // namespace tessera::poisson
