#include "npb_problem.hpp"

namespace tessera::mg {

namespace {

constexpr ProblemClass kClasses[] = {
    {'S', 32, 4, 0.5307707005734e-04},   {'W', 128, 4, 0.6467329375339e-05},
    {'A', 256, 4, 0.2433365309069e-05},  {'B', 256, 20, 0.1800564401355e-05},
    {'C', 512, 20, 0.5706732285740e-06},
};

}  // namespace

ProblemClass classify(int nx, int nit) {
  for (const ProblemClass& c : kClasses) {
    if (c.nx == nx && c.nit == nit) return c;
  }
  return {'U', nx, nit, std::nullopt};
}

std::optional<ProblemClass> class_definition(char name) {
  for (const ProblemClass& c : kClasses) {
    if (c.name == name) return c;
  }
  return std::nullopt;
}

Coefficients operator_coefficients() {
  return {-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};
}

Coefficients smoother_coefficients(char class_name) {
  if (class_name == 'S' || class_name == 'W' || class_name == 'A') {
    return {-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};
  }
  return {-3.0 / 17.0, 1.0 / 33.0, -1.0 / 61.0, 0.0};
}

}  // namespace tessera::mg
