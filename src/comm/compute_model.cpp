#include "comm/compute_model.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#ifdef TESSERA_SMPI
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>
#include <xbt/config.h>
#include <xbt/config.hpp>
#include <xbt/parse_units.hpp>

#include "tessera/base/monotonic_clock.hpp"
#endif

namespace tessera::detail {
namespace {

constexpr const char* kCalibrateVariable = "TESSERA_COMPUTE_CALIBRATE";
constexpr const char* kModelVariable = "TESSERA_COMPUTE_MODEL";
constexpr const char* kOverheadsVariable = "TESSERA_COMPUTE_OVERHEADS";
constexpr const char* kSkipVariable = "TESSERA_COMPUTE_SKIP_BODIES";
constexpr const char* kFormat = "tessera-compute-calibration-1";

// Calibrating: thread CPU seconds of all stretches this thread timed so far, clock reads
// included: what an enclosing stretch subtracts (an overhead around a body).
thread_local double timed_total = 0;

// The calibration's clock: the steady clock (a vDSO read, ~25 ns). The thread's CPU clock
// (what SMPI's timer reads) is a system call of ~0.5 us, as long as the runtime's own
// work per task, which it could not time; on a warm run whose ranks own their cores the
// two agree but where the thread was preempted, which the 10th percentile leaves out.
double clock_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "" (unset), "0" or "1" from a boolean variable; anything else throws naming it.
bool flag_from_environment(const char* variable, const char* meaning) {
  const char* value = std::getenv(variable);
  const std::string text = value ? value : "";
  if (text != "" && text != "0" && text != "1") {
    throw std::invalid_argument(
        fmt::format("{}: expected 0 or 1 ({}), got '{}'", variable, meaning, text));
  }
  return text == "1";
}

#ifdef TESSERA_SMPI
void release_folded(void* memory) {
  smpi_shared_free(memory);
}
#endif

}  // namespace

std::unique_ptr<ComputeModel> ComputeModel::from_environment() {
  const char* calibrate = std::getenv(kCalibrateVariable);
  const char* model = std::getenv(kModelVariable);
  const bool has_calibrate = calibrate && *calibrate;
  const bool has_model = model && *model;
  const bool skip = flag_from_environment(kSkipVariable, "skip the charged bodies");
  if (skip && !has_model) {
    throw std::invalid_argument(
        fmt::format("{}=1 needs {} (the calibration that charges the skipped bodies)",
                    kSkipVariable, kModelVariable));
  }
  if (has_calibrate && has_model) {
    throw std::invalid_argument(
        fmt::format("{} and {}: set at most one of them", kCalibrateVariable, kModelVariable));
  }
  if (has_calibrate) {
    auto result = std::unique_ptr<ComputeModel>(new ComputeModel(Mode::calibrate, calibrate));
    // Rank 0 times and writes; on several ranks only a real run (ranks on cores of their
    // own) is warm: simulated ranks share one core and its caches.
    int initialized = 0;
    int rank = 0;
    int size = 1;
    MPI_Initialized(&initialized);
    if (initialized) {
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
#ifdef TESSERA_SMPI
    if (size != 1) {
      throw std::invalid_argument(fmt::format(
          "{}: a simulated calibration runs on one rank (got {}): simulated ranks share one "
          "core's caches; calibrate several ranks with a real build",
          kCalibrateVariable, size));
    }
#endif
    if (rank != 0) return nullptr;
    return result;
  }
  if (!has_model) return nullptr;
#ifndef TESSERA_SMPI
  throw std::invalid_argument(
      fmt::format("{}: modelled compute is for simulated runs (an SMPI build, scripts/smpi-build); "
                  "unset it for a real run",
                  kModelVariable));
#else
  auto result = std::unique_ptr<ComputeModel>(new ComputeModel(Mode::model, model));
  result->charge_overheads_ =
      flag_from_environment(kOverheadsVariable, "charge tessera's own work from the calibration");
  result->skip_bodies_ = skip;
  if (skip) {
    // Folding needs SMPI's global shared malloc: every allocation maps one file's pages.
    const auto folding = simgrid::config::get_value<std::string>("smpi/shared-malloc");
    if (folding != "global") {
      throw std::invalid_argument(
          fmt::format("{}=1: field storage is folded with smpi/shared-malloc:global, this run has "
                      "smpi/shared-malloc:{} (scripts/smpi-run sets it)",
                      kSkipVariable, folding));
    }
  }
  // With SMPI's own timing off nothing but the charges takes simulated time, and they can
  // wait for the next MPI call (flush_charges); with it on, the measured stretches between
  // charges are executed as they end, so the charges are too.
  result->defer_ = sg_cfg_get_boolean("smpi/simulate-computation") == 0;
  // A calibrated second is a second at smpi/host-speed (this machine's core, as the
  // platform's reference host); this rank's host may be slower or faster (an uneven
  // platform: bench/platforms/half-speed.xml). smpi_execute scales by the host itself; a
  // deferred charge is slept, so it is scaled here, and the rank's clock, its trace and
  // its measured block costs (--balance cost) all see the host's speed.
  const double reference = xbt_parse_get_speed(
      "", 0, simgrid::config::get_value<std::string>("smpi/host-speed"), "smpi/host-speed");
  const double host = sg_host_get_speed(sg_host_self());
  if (reference > 0 && host > 0) result->host_slowness_ = reference / host;
  result->load();
  return result;
#endif
}

ComputeModel::ComputeModel(Mode mode, std::string file) : mode_(mode), file_(std::move(file)) {
  // The hook of this process while it lives: OverheadScope and flush_compute_charges use it.
  detail::active_compute_hook = this;
  if (mode_ != Mode::calibrate) return;
  // What two reads of the clock around nothing take is subtracted from every sample, or
  // the smallest bodies and overheads would be charged more than their cost.
  std::vector<double> empty(1001);
  for (double& e : empty) {
    const double begin = clock_seconds();
    e = clock_seconds() - begin;
  }
  std::nth_element(empty.begin(), empty.begin() + 500, empty.end());
  clock_cost_ = empty[500];
}

ComputeModel::~ComputeModel() {
  if (detail::active_compute_hook == this) detail::active_compute_hook = nullptr;
  if (mode_ != Mode::calibrate) return;
  try {
    write();
  } catch (const std::exception& e) {
    // A destructor cannot throw: the missing file is what the calibrating script sees.
    fmt::print(stderr, "tessera: {}: {}\n", kCalibrateVariable, e.what());
  }
}

std::string ComputeModel::description() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (mode_ == Mode::calibrate) return fmt::format("calibrating {}", file_);
  return fmt::format(
      "modelled from {} ({} bodies charged{}, {} timed{})", file_, modelled_,
      skip_bodies_ ? " and skipped: field values and checksums meaningless" : "", unmodelled_,
      charge_overheads_ ? fmt::format(", {} overheads charged", overheads_charged_) : "");
}

void ComputeModel::load() {
  std::ifstream in(file_);
  if (!in) {
    throw std::invalid_argument(
        fmt::format("{}: cannot open '{}' (a file written by a run with {})", kModelVariable, file_,
                    kCalibrateVariable));
  }
  nlohmann::json j;
  try {
    in >> j;
    if (j.at("format").get<std::string>() != kFormat) throw std::runtime_error("unknown format");
    for (const auto& t : j.at("tasks")) {
      const auto name = t.at("name").get<std::string>();
      const auto work = t.at("work").get<std::int64_t>();
      const auto seconds = t.at("seconds").get<double>();
      const auto count = t.at("samples").get<double>();
      const auto variant = t.value("variant", std::int32_t{0});
      if (work <= 0 || !(seconds >= 0) || !(count > 0)) throw std::runtime_error("bad entry");
      costs_[name][variant].by_work[work] = seconds;
    }
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("{}: '{}' is not a calibration of format {}: {}",
                                            kModelVariable, file_, kFormat, e.what()));
  }
}

void ComputeModel::write() const {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& [key, times] : samples_) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    // The charge is the 10th percentile: the machine's load (other processes on the core,
    // their cache traffic) only ever adds time, and a warm kernel's own variation is small;
    // the median and the minimum are kept for the reader.
    nlohmann::json entry{{"name", std::get<0>(key)},
                         {"work", std::get<2>(key)},
                         {"samples", sorted.size()},
                         {"seconds", sorted[sorted.size() / 10]},
                         {"median_seconds", sorted[sorted.size() / 2]},
                         {"min_seconds", sorted.front()}};
    if (std::get<1>(key) != 0) entry["variant"] = std::get<1>(key);
    tasks.push_back(std::move(entry));
  }
  std::ofstream out(file_);
  out << nlohmann::json{{"format", kFormat}, {"clock_read_seconds", clock_cost_}, {"tasks", tasks}}
             .dump(1)
      << '\n';
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", file_));
}

const ComputeModel::NameCost* ComputeModel::cost_of(const char* name, std::int32_t variant) {
  const auto cached = by_address_.find({name, variant});
  if (cached != by_address_.end()) return cached->second;
  const auto found = costs_.find(name);
  const NameCost* cost = nullptr;
  if (found != costs_.end() && !found->second.empty()) {
    // A variant the calibration did not see (its run had no such face) costs as the
    // name's lowest: older calibrations have variant 0 only.
    const auto v = found->second.find(variant);
    cost = v != found->second.end() ? &v->second : &found->second.begin()->second;
  }
  by_address_.emplace(std::make_pair(name, variant), cost);
  return cost;
}

double ComputeModel::seconds_of(const NameCost& cost, std::int64_t work) {
  // The calibrated size, or linear between the two around it; below the smallest its time
  // (a body's fixed cost does not shrink with its work), above the largest in proportion.
  const auto above = cost.by_work.lower_bound(work);
  if (above != cost.by_work.end() && above->first == work) return above->second;
  if (above == cost.by_work.begin()) return above->second;
  const auto below = std::prev(above);
  const auto w = static_cast<double>(work);
  if (above == cost.by_work.end()) return below->second * w / static_cast<double>(below->first);
  const double t =
      (w - static_cast<double>(below->first)) / static_cast<double>(above->first - below->first);
  return below->second + t * (above->second - below->second);
}

void ComputeModel::record(const char* name, std::int32_t variant, std::int64_t work,
                          double seconds) {
  // `seconds`: the stretch less what was timed inside it, which timed_total holds already.
  samples_[{name, variant, work}].push_back(std::max(0.0, seconds - clock_cost_));
  // The enclosing stretch also holds this one's two clock reads, one of them beyond
  // `seconds` (each read's cost is about clock_cost_).
  timed_total += seconds + clock_cost_;
}

ComputeHook::OverheadToken ComputeModel::begin_overhead() const {
  if (mode_ != Mode::calibrate) return {};
  return {clock_seconds(), timed_total};
}

void ComputeModel::end_overhead(const char* name, const OverheadToken& token) {
  if (mode_ == Mode::calibrate) {
    const double elapsed = clock_seconds() - token.start;
    const std::lock_guard<std::mutex> lock(mutex_);
    record(name, 0, 1, elapsed - (timed_total - token.inner));
    return;
  }
  if (!charge_overheads_) return;
  const NameCost* cost = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    cost = cost_of(name, 0);
    if (cost) ++overheads_charged_;
  }
  if (!cost) return;
  charge(seconds_of(*cost, 1));
}

void ComputeModel::charge(double seconds) {
#ifdef TESSERA_SMPI
  if (defer_ && std::this_thread::get_id() == owner_) {
    base::deferred_compute_seconds.store(
        base::deferred_compute_seconds.load(std::memory_order_relaxed) + seconds * host_slowness_,
        std::memory_order_relaxed);
    return;
  }
  smpi_bench_end();
  smpi_execute(seconds);
  smpi_bench_begin();
#else
  (void)seconds;
#endif
}

void ComputeModel::flush() {
#ifdef TESSERA_SMPI
  if (std::this_thread::get_id() != owner_) return;
  const double seconds = base::deferred_compute_seconds.load(std::memory_order_relaxed);
  if (seconds <= 0) return;
  base::deferred_compute_seconds.store(0, std::memory_order_relaxed);
  // The rank waits out its charged work on its host's timeline. A host runs one rank and
  // nothing else computes on it (SMPI's own timing is off), so an execution of these
  // seconds would end at the same simulated time; a sleep spares SimGrid 3.32's walk of the
  // actor's activity list that ends every execution (docs/scaling-sim.md, "Cost").
  smpi_bench_end();
  sg_actor_sleep_for(seconds);
  smpi_bench_begin();
#endif
}

void ComputeModel::run(const char* name, std::int64_t work, std::int32_t variant,
                       void (*invoke)(void*), void* body) {
  if (mode_ == Mode::calibrate) {
    const OverheadToken token = begin_overhead();
    invoke(body);
    const double elapsed = clock_seconds() - token.start;
    const std::lock_guard<std::mutex> lock(mutex_);
    record(name, variant, work, elapsed - (timed_total - token.inner));
    return;
  }
  const NameCost* cost = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    cost = cost_of(name, variant);
    ++(cost ? modelled_ : unmodelled_);
  }
  if (!cost) {
    invoke(body);
    return;
  }
  const double seconds = seconds_of(*cost, work);
#ifdef TESSERA_SMPI
  if (skip_bodies_) {
    // The same charge at the same point as a run of the body, without its work.
    if (defer_ && std::this_thread::get_id() == owner_) {
      charge(seconds);
    } else {
      smpi_bench_end();
      smpi_execute(seconds);
      smpi_bench_begin();
    }
    return;
  }
  if (defer_ && std::this_thread::get_id() == owner_) {
    invoke(body);
    charge(seconds);
    return;
  }
  // The code since the last MPI call is charged as measured; the body's own time is not
  // measured (the timer restarts after it) but charged from the calibration.
  smpi_bench_end();
  struct Restart {
    double seconds;
    ~Restart() {
      // SMPI drops a burst below smpi/cpu-threshold (1 us): then so is this one, as it
      // would be measured.
      smpi_execute(seconds);
      smpi_bench_begin();
    }
  } restart{seconds};
  invoke(body);
#else
  (void)seconds;
  invoke(body);
#endif
}

ComputeHook::FoldedStorage ComputeModel::allocate_folded(std::size_t bytes) {
#ifdef TESSERA_SMPI
  if (skip_bodies_) {
    // Global mode: the allocation is reserved and every block of it mapped onto SimGrid's
    // one shared file (smpi/shared-malloc-blocksize, which scripts/smpi-run raises so that
    // a field takes one mapping: 512 ranks' fields stay within vm.max_map_count).
    void* memory = smpi_shared_malloc(bytes, __FILE__, __LINE__);
    if (!memory) throw std::bad_alloc();
    return {memory, &release_folded};
  }
#endif
  (void)bytes;
  return {};
}

}  // namespace tessera::detail

namespace tessera {

std::unique_ptr<ComputeHook> compute_model_from_environment() {
  return detail::ComputeModel::from_environment();
}

}  // namespace tessera
