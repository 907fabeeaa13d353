#pragma once
// The runtime's hook for timing or modelling task bodies (layer `runtime`, no MPI). A
// simulated run (SimGrid SMPI, docs/scaling-sim.md "Modelled compute") charges bodies from
// a calibration instead of letting them take simulated time, and a calibration run times
// them; both need MPI and SimGrid, which sit above the runtime. The runtime therefore only
// knows this interface: the layer above hands RuntimeOptions::compute_hook a factory (the
// comm layer's compute model), and the runtime calls the hook around bodies, around its
// own overheads and before it returns to code that may call MPI.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tessera {

/// How the bodies that state their work (TaskAttributes::work) are timed. Implementations
/// may be called from every worker thread at once (run, begin_overhead, end_overhead);
/// flush_charges is called on the thread that made the Runtime.
class ComputeHook {
 public:
  /// What begin_overhead hands to end_overhead.
  struct OverheadToken {
    double start = 0;  // the clock at the start (calibrating)
    double inner = 0;  // what this thread had timed by then (calibrating)
  };

  virtual ~ComputeHook() = default;
  /// Runs invoke(body), timing or charging it as task `name` with `work` and `variant`.
  virtual void run(const char* name, std::int64_t work, std::int32_t variant, void (*invoke)(void*),
                   void* body) = 0;
  /// For Runtime::compute_timing ("calibrating FILE", "modelled from FILE ...").
  virtual std::string description() const = 0;
  /// Settles the charges deferred since the last call (before an MPI call that can see
  /// simulated time).
  virtual void flush_charges() = 0;
  /// Starts one stretch of the runtime's own work (dependency analysis, releases, MPI
  /// posts); end_overhead records or charges it under `name`.
  virtual OverheadToken begin_overhead() const = 0;
  virtual void end_overhead(const char* name, const OverheadToken& token) = 0;

  /// Whether charged bodies are skipped: charged from the calibration without running
  /// (a simulation's TESSERA_COMPUTE_SKIP_BODIES=1, docs/scaling-sim.md "Skipped bodies").
  /// Field values are then meaningless: an app must not let them steer its control flow.
  virtual bool skips_bodies() const { return false; }

  /// Field storage folded across simulated ranks, or {nullptr, nullptr} for ordinary
  /// storage. Only a hook that skips bodies folds: every allocation may then map the same
  /// physical pages (its contents are garbage, not zeros), released with `release`.
  struct FoldedStorage {
    void* memory = nullptr;
    void (*release)(void*) = nullptr;
  };
  virtual FoldedStorage allocate_folded(std::size_t /*bytes*/) { return {}; }
};

/// Makes the process's compute hook when a Runtime starts; may return nullptr (bodies are
/// measured as they run). Called once per Runtime, on the thread that makes it.
using ComputeHookFactory = std::unique_ptr<ComputeHook> (*)();

namespace detail {

/// The compute hook of this process, or nullptr. A hook sets it when made and clears it when
/// destroyed. An ordinary global (src/runtime/compute_hook.cpp), not an inline variable:
/// SMPI gives each simulated rank its own copy of the ordinary globals, while the dynamic
/// linker keeps one copy of an inline (GNU unique) variable for all of them.
extern ComputeHook* active_compute_hook;

/// ComputeHook::flush_charges of the active hook, if any.
inline void flush_compute_charges() {
  if (active_compute_hook) active_compute_hook->flush_charges();
}

/// ComputeHook::allocate_folded of the active hook; {} (ordinary storage) without one.
/// Main thread only.
inline ComputeHook::FoldedStorage allocate_folded_storage(std::size_t bytes) {
  return active_compute_hook ? active_compute_hook->allocate_folded(bytes)
                             : ComputeHook::FoldedStorage{};
}

/// A scope timed or charged as one overhead of the active hook; nothing without one.
/// drop(): the scope was waiting, not working.
class OverheadScope {
 public:
  explicit OverheadScope(const char* name) : hook_(active_compute_hook), name_(name) {
    if (hook_) token_ = hook_->begin_overhead();
  }
  ~OverheadScope() {
    if (hook_) hook_->end_overhead(name_, token_);
  }
  OverheadScope(const OverheadScope&) = delete;
  OverheadScope& operator=(const OverheadScope&) = delete;
  void drop() { hook_ = nullptr; }

 private:
  ComputeHook* hook_;
  const char* name_;
  ComputeHook::OverheadToken token_;
};

}  // namespace detail

/// Whether this process's compute hook skips the bodies it charges (an SMPI run with
/// TESSERA_COMPUTE_SKIP_BODIES=1): field values are meaningless, so an app must take no
/// decision from them (a time step, a convergence test, a positivity check) and report
/// no checksum as a result. False in every real run. Callable from any thread.
inline bool compute_bodies_skipped() {
  return detail::active_compute_hook && detail::active_compute_hook->skips_bodies();
}

}  // namespace tessera
