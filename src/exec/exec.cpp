#include "tessera/exec/exec_model.hpp"

#include "tessera/base/tick_clock.hpp"

namespace tessera {

std::string_view to_string(ExecModel model) {
  switch (model) {
    case ExecModel::bsp:
      return "bsp";
    case ExecModel::forkjoin:
      return "forkjoin";
    case ExecModel::dataflow:
      return "dataflow";
  }
  return "?";
}

std::optional<ExecModel> parse_exec_model(std::string_view text) {
  if (text == "bsp") return ExecModel::bsp;
  if (text == "forkjoin") return ExecModel::forkjoin;
  if (text == "dataflow") return ExecModel::dataflow;
  return std::nullopt;
}

RuntimeOptions runtime_options_for(ExecModel model, int threads) {
  RuntimeOptions options;
  options.threads = model == ExecModel::bsp ? 1 : threads;
  options.sequential = model == ExecModel::bsp;
  return options;
}

Exec::Exec(ExecModel model, Runtime& runtime) : model_(model), runtime_(runtime) {
  const base::TickReference reference = base::TickReference::now();
  reference_ticks_ = reference.ticks;
  reference_ns_ = reference.ns;
}

void Exec::begin_phase(const char* name) {
  close_phase();
  current_ = name;
}

void Exec::end_phase() {
  if (model_ == ExecModel::forkjoin) runtime_.wait_all();
}

void Exec::barrier() {
  runtime_.wait_all();
}

void Exec::close_phase() {
  const std::int64_t now = base::fast_ticks();
  if (current_) {
    auto it = ticks_.begin();
    while (it != ticks_.end() && it->first != current_) ++it;
    if (it == ticks_.end()) it = ticks_.insert(it, {current_, 0});
    it->second += now - since_;
  }
  since_ = now;
}

std::map<std::string, double> Exec::phase_seconds() {
  close_phase();
  const base::TickCalibration clock(base::TickReference{reference_ticks_, reference_ns_});
  std::map<std::string, double> by_name;
  for (const auto& [name, ticks] : ticks_) by_name[name] += clock.duration_ns(ticks) * 1e-9;
  return by_name;
}

}  // namespace tessera
