#include "tessera/exec.hpp"

namespace tessera {

std::string_view to_string(ExecModel model) {
  switch (model) {
    case ExecModel::bsp: return "bsp";
    case ExecModel::forkjoin: return "forkjoin";
    case ExecModel::dataflow: return "dataflow";
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

void Exec::begin_phase(const char* name) {
  close_phase();
  current_ = name;
  since_ = std::chrono::steady_clock::now();
}

void Exec::end_phase() {
  if (model_ == ExecModel::forkjoin) runtime_.wait_all();
}

void Exec::barrier() { runtime_.wait_all(); }

void Exec::close_phase() {
  if (!current_) return;
  const auto now = std::chrono::steady_clock::now();
  seconds_[current_] += std::chrono::duration<double>(now - since_).count();
  since_ = now;
}

std::map<std::string, double> Exec::phase_seconds() {
  close_phase();
  std::map<std::string, double> by_name;
  for (const auto& [name, seconds] : seconds_) by_name[name] += seconds;
  return by_name;
}

}  // namespace tessera
