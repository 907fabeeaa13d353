#include "runtime/compute_model.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#ifdef TESSERA_SMPI
#include <smpi/smpi.h>
#endif

namespace tessera::detail {
namespace {

constexpr const char* kCalibrateVariable = "TESSERA_COMPUTE_CALIBRATE";
constexpr const char* kModelVariable = "TESSERA_COMPUTE_MODEL";
constexpr const char* kFormat = "tessera-compute-calibration-1";

// The calling thread's CPU time: what SMPI's own timer of a rank's code reads.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

std::unique_ptr<ComputeModel> ComputeModel::from_environment() {
  const char* calibrate = std::getenv(kCalibrateVariable);
  const char* model = std::getenv(kModelVariable);
  const bool has_calibrate = calibrate && *calibrate;
  const bool has_model = model && *model;
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
  result->load();
  return result;
#endif
}

ComputeModel::ComputeModel(Mode mode, std::string file) : mode_(mode), file_(std::move(file)) {
  if (mode_ != Mode::calibrate) return;
  // Reading the thread's CPU clock is a system call (~0.5 us): what two reads around
  // nothing take is subtracted from every sample, or the smallest bodies would be charged
  // several times their cost.
  std::vector<double> empty(1001);
  for (double& e : empty) {
    const double begin = thread_cpu_seconds();
    e = thread_cpu_seconds() - begin;
  }
  std::nth_element(empty.begin(), empty.begin() + 500, empty.end());
  clock_cost_ = empty[500];
}

ComputeModel::~ComputeModel() {
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
  return fmt::format("modelled from {} ({} bodies charged, {} timed)", file_, modelled_,
                     unmodelled_);
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
      if (work <= 0 || !(seconds >= 0) || !(count > 0)) throw std::runtime_error("bad entry");
      costs_[name].by_work[work] = seconds;
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
    tasks.push_back({{"name", key.first},
                     {"work", key.second},
                     {"samples", sorted.size()},
                     {"seconds", sorted[sorted.size() / 10]},
                     {"median_seconds", sorted[sorted.size() / 2]},
                     {"min_seconds", sorted.front()}});
  }
  std::ofstream out(file_);
  out << nlohmann::json{{"format", kFormat}, {"clock_read_seconds", clock_cost_}, {"tasks", tasks}}
             .dump(1)
      << '\n';
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", file_));
}

const ComputeModel::NameCost* ComputeModel::cost_of(const char* name) {
  const auto cached = by_address_.find(name);
  if (cached != by_address_.end()) return cached->second;
  const auto found = costs_.find(name);
  const NameCost* cost = found == costs_.end() ? nullptr : &found->second;
  by_address_.emplace(name, cost);
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

void ComputeModel::run(const char* name, std::int64_t work, void (*invoke)(void*), void* body) {
  if (mode_ == Mode::calibrate) {
    const double begin = thread_cpu_seconds();
    invoke(body);
    const double seconds = std::max(0.0, thread_cpu_seconds() - begin - clock_cost_);
    const std::lock_guard<std::mutex> lock(mutex_);
    samples_[{name, work}].push_back(seconds);
    return;
  }
  const NameCost* cost = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    cost = cost_of(name);
    ++(cost ? modelled_ : unmodelled_);
  }
  if (!cost) {
    invoke(body);
    return;
  }
  const double seconds = seconds_of(*cost, work);
#ifdef TESSERA_SMPI
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

}  // namespace tessera::detail
