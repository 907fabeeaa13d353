#pragma once
// Modelled compute for simulated runs (docs/scaling-sim.md, "Modelled compute"). SimGrid's
// SMPI times every stretch of a simulated rank's code on this machine's CPU, where all
// simulated ranks take turns on one core: a rank's fields are out of the caches each time
// it runs, so its kernels run slower than on a node whose ranks own their cores. Bodies
// that state their work (TaskAttributes::work) can instead be timed on a warm 1-rank run
// (calibration) and, in a simulation, charged from that table; they still run for real.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessera::detail {

class ComputeModel {
 public:
  /// From the environment: TESSERA_COMPUTE_CALIBRATE=FILE records the thread CPU time of
  /// every body with work > 0 on world rank 0 and writes its 10th percentile per (task name,
  /// work) to FILE when the runtime ends (a warm run: one simulated rank, or real ranks on
  /// cores of their own); TESSERA_COMPUTE_MODEL=FILE (SMPI builds only)
  /// charges those bodies from such a file. nullptr when neither is set; a bad value throws
  /// std::invalid_argument naming the variable.
  static std::unique_ptr<ComputeModel> from_environment();
  ~ComputeModel();

  /// Runs invoke(body): timed for the calibration, or charged from it (a body whose name the
  /// calibration lacks is timed as usual, and counted).
  void run(const char* name, std::int64_t work, void (*invoke)(void*), void* body);

  /// For Runtime::compute_timing: "calibrating FILE" or "modelled from FILE (N bodies
  /// charged, M timed)".
  std::string description() const;

 private:
  enum class Mode { calibrate, model };
  // One task name's calibration: the charged seconds of each work size seen.
  struct NameCost {
    std::map<std::int64_t, double> by_work;
  };
  static double seconds_of(const NameCost& cost, std::int64_t work);
  ComputeModel(Mode mode, std::string file);
  void load();
  void write() const;
  const NameCost* cost_of(const char* name);
  void charge(double seconds);

  Mode mode_;
  std::string file_;
  double clock_cost_ = 0;  // calibrate: seconds of two back-to-back reads of the clock
  // calibrate: samples per (name, work)
  std::map<std::pair<std::string, std::int64_t>, std::vector<double>> samples_;
  // model: costs by name, and a cache by the name's address (names are string literals,
  // one address per call site)
  std::unordered_map<std::string, NameCost> costs_;
  std::unordered_map<const char*, const NameCost*> by_address_;
  std::uint64_t modelled_ = 0;
  std::uint64_t unmodelled_ = 0;
  // Bodies run on every worker thread: the tables and counts are shared.
  mutable std::mutex mutex_;
};

}  // namespace tessera::detail
