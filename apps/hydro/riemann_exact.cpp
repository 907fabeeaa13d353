#include "riemann_exact.hpp"

#include <cmath>
#include <stdexcept>

namespace hydro {

ExactRiemann::ExactRiemann(RiemannState left, RiemannState right, double gamma)
    : l_(left), r_(right), gamma_(gamma) {
  cl_ = std::sqrt(gamma * l_.p / l_.rho);
  cr_ = std::sqrt(gamma * r_.p / r_.rho);
  if (2 / (gamma - 1) * (cl_ + cr_) <= r_.u - l_.u)
    throw std::runtime_error("exact Riemann solver: the initial states generate vacuum");
  // Start from the primitive-variable guess (Toro 4.47), kept positive.
  double p = std::max(
      1e-12, 0.5 * (l_.p + r_.p) - 0.125 * (r_.u - l_.u) * (l_.rho + r_.rho) * (cl_ + cr_));
  for (int it = 0; it < 100; ++it) {
    double dl = 0, dr = 0;
    const double f =
        pressure_function(p, l_, cl_, dl) + pressure_function(p, r_, cr_, dr) + (r_.u - l_.u);
    double next = p - f / (dl + dr);
    if (next <= 0) next = 0.5 * p;
    const double change = std::fabs(next - p) / (0.5 * (next + p));
    p = next;
    if (change < 1e-14) break;
  }
  p_star_ = p;
  double d = 0;
  u_star_ = 0.5 * (l_.u + r_.u) +
            0.5 * (pressure_function(p, r_, cr_, d) - pressure_function(p, l_, cl_, d));
}

double ExactRiemann::pressure_function(double p, const RiemannState& k, double c,
                                       double& derivative) const {
  const double g = gamma_;
  if (p > k.p) {  // shock
    const double a = 2 / ((g + 1) * k.rho), b = (g - 1) / (g + 1) * k.p;
    const double root = std::sqrt(a / (p + b));
    derivative = root * (1 - 0.5 * (p - k.p) / (b + p));
    return (p - k.p) * root;
  }
  // rarefaction
  const double ratio = p / k.p;
  derivative = 1 / (k.rho * c) * std::pow(ratio, -(g + 1) / (2 * g));
  return 2 * c / (g - 1) * (std::pow(ratio, (g - 1) / (2 * g)) - 1);
}

RiemannState ExactRiemann::sample(double s) const {
  const double g = gamma_;
  const double ps = p_star_, us = u_star_;
  if (s <= us) {  // left of the contact
    const RiemannState& k = l_;
    const double c = cl_;
    if (ps > k.p) {
      const double sl = k.u - c * std::sqrt((g + 1) / (2 * g) * ps / k.p + (g - 1) / (2 * g));
      if (s <= sl) return k;
      const double ratio = ps / k.p;
      return {k.rho * (ratio + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ratio + 1), us, ps};
    }
    const double head = k.u - c;
    const double c_star = c * std::pow(ps / k.p, (g - 1) / (2 * g));
    const double tail = us - c_star;
    if (s <= head) return k;
    if (s >= tail) return {k.rho * std::pow(ps / k.p, 1 / g), us, ps};
    const double factor = 2 / (g + 1) + (g - 1) / ((g + 1) * c) * (k.u - s);
    return {k.rho * std::pow(factor, 2 / (g - 1)), 2 / (g + 1) * (c + (g - 1) / 2 * k.u + s),
            k.p * std::pow(factor, 2 * g / (g - 1))};
  }
  const RiemannState& k = r_;
  const double c = cr_;
  if (ps > k.p) {
    const double sr = k.u + c * std::sqrt((g + 1) / (2 * g) * ps / k.p + (g - 1) / (2 * g));
    if (s >= sr) return k;
    const double ratio = ps / k.p;
    return {k.rho * (ratio + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ratio + 1), us, ps};
  }
  const double head = k.u + c;
  const double c_star = c * std::pow(ps / k.p, (g - 1) / (2 * g));
  const double tail = us + c_star;
  if (s >= head) return k;
  if (s <= tail) return {k.rho * std::pow(ps / k.p, 1 / g), us, ps};
  const double factor = 2 / (g + 1) - (g - 1) / ((g + 1) * c) * (k.u - s);
  return {k.rho * std::pow(factor, 2 / (g - 1)), 2 / (g + 1) * (-c + (g - 1) / 2 * k.u + s),
          k.p * std::pow(factor, 2 * g / (g - 1))};
}

}  // namespace hydro
