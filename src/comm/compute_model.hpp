#pragma once
// Modelled compute for simulated runs (docs/scaling-sim.md, "Modelled compute"). SimGrid's
// SMPI times every stretch of a simulated rank's code on this machine's CPU, where all
// simulated ranks take turns on one core: a rank's fields are out of the caches each time
// it runs, so its kernels run slower than on a node whose ranks own their cores. Bodies
// that state their work (TaskAttributes::work) can instead be timed on a warm 1-rank run
// (calibration) and, in a simulation, charged from that table; they still run for real.
// The runtime sees this model only through its ComputeHook interface
// (tessera/runtime/compute_hook.hpp): it needs MPI and SimGrid, which the runtime does not.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/comm/compute_model.hpp"
#include "tessera/runtime/compute_hook.hpp"

namespace tessera::detail {

class ComputeModel final : public ComputeHook {
 public:
  /// From the environment (TESSERA_COMPUTE_SKIP_BODIES below): TESSERA_COMPUTE_CALIBRATE=FILE
  /// records the thread CPU time of every body with work > 0 on world rank 0 and writes its 10th
  /// percentile per (task name, work) to FILE when the runtime ends (a warm run: one simulated
  /// rank, or real ranks on cores of their own); TESSERA_COMPUTE_MODEL=FILE (SMPI builds only)
  /// charges those bodies from such a file. nullptr when neither is set; a bad value throws
  /// std::invalid_argument naming the variable.
  static std::unique_ptr<ComputeModel> from_environment();
  ~ComputeModel() override;

  /// Runs invoke(body): timed for the calibration, or charged from it (a body whose name the
  /// calibration lacks is timed as usual, and counted; a variant it lacks is charged as the
  /// name's lowest calibrated variant).
  void run(const char* name, std::int64_t work, std::int32_t variant, void (*invoke)(void*),
           void* body) override;

  /// For Runtime::compute_timing: "calibrating FILE" or "modelled from FILE (N bodies
  /// charged, M timed)" (", overheads charged" with TESSERA_COMPUTE_OVERHEADS=1).
  std::string description() const override;

  /// Waits out the charges deferred since the last call in one simulated sleep (SMPI
  /// builds; nothing otherwise). While SMPI's own timing is off (smpi/simulate-computation
  /// :no, the calibrated and bound timings) charges are summed instead of executed one by
  /// one: only MPI calls (and clock reads, base::deferred_compute_seconds) observe a rank's
  /// time, and SimGrid 3.32 pays per execution a walk of the actor's list of activities,
  /// which grows with every request completed by a test (docs/scaling-sim.md, "Cost").
  /// Called (detail::flush_compute_charges) on the MPI thread before every MPI call that can
  /// see simulated time, and before the runtime returns to code that may make one.
  void flush_charges() override {
#ifdef TESSERA_SMPI
    if (defer_) flush();
#endif
  }

  /// Overheads: tessera's own work outside the bodies (dependency analysis, releasing
  /// successors, posting MPI requests, handling completions), timed on a warm calibration
  /// run as the bodies are and, with TESSERA_COMPUTE_OVERHEADS=1 in a simulation, charged
  /// per event from it. begin_overhead() starts one (a token for end_overhead);
  /// end_overhead(name, token) records it (calibrating, less the bodies and overheads timed
  /// inside it) or charges its calibrated time (modelled). OverheadScope wraps the pair.
  OverheadToken begin_overhead() const override;
  void end_overhead(const char* name, const OverheadToken& token) override;

  /// TESSERA_COMPUTE_SKIP_BODIES=1 (SMPI builds, with TESSERA_COMPUTE_MODEL): a body with a
  /// calibrated cost is charged and not run; a body without one still runs.
  bool skips_bodies() const override {
    return skip_bodies_;
  }
  /// Skipping bodies: storage from SMPI's global shared malloc (every simulated rank's
  /// fields on the same physical pages); otherwise {} (ordinary storage).
  FoldedStorage allocate_folded(std::size_t bytes) override;

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
  const NameCost* cost_of(const char* name, std::int32_t variant);
  void charge(double seconds);
  void flush();
  void record(const char* name, std::int32_t variant, std::int64_t work,
              double seconds);  // locked

  Mode mode_;
  std::string file_;
  double clock_cost_ = 0;  // calibrate: seconds of two back-to-back reads of the clock
  // calibrate: samples per (name, variant, work)
  std::map<std::tuple<std::string, std::int32_t, std::int64_t>, std::vector<double>> samples_;
  // model: costs by name and variant, and a cache by the name's address (names are string
  // literals, one address per call site)
  std::unordered_map<std::string, std::map<std::int32_t, NameCost>> costs_;
  std::map<std::pair<const char*, std::int32_t>, const NameCost*> by_address_;
  std::uint64_t modelled_ = 0;
  std::uint64_t unmodelled_ = 0;
  // model: whether overheads are charged (TESSERA_COMPUTE_OVERHEADS=1), and their costs
  bool charge_overheads_ = false;
  // model: charged bodies are not run, fields folded (TESSERA_COMPUTE_SKIP_BODIES=1)
  bool skip_bodies_ = false;
  // model: charges are summed until flush() (SMPI's own timing off; see flush_charges),
  // those of the thread that made the model (the MPI thread): SMPI times no other
  bool defer_ = false;
  // model, deferred: simulated seconds per calibrated second on this rank's host (the
  // reference speed, smpi/host-speed, over the host's speed)
  double host_slowness_ = 1.0;
  std::thread::id owner_ = std::this_thread::get_id();
  std::uint64_t overheads_charged_ = 0;
  // Bodies run on every worker thread: the tables and counts are shared.
  mutable std::mutex mutex_;
};

}  // namespace tessera::detail
