#include "su_olson.hpp"

#include <cmath>
#include <complex>
#include <numbers>

namespace radhydro {

std::array<double, 2> su_olson_marshak(double x, double tau, double eps) {
  using C = std::complex<double>;
  constexpr int kNodes = 32;
  const auto transform = [&](C s) {
    const C g = std::sqrt(s * (eps + 1.0 / (1.0 + s)));
    const C u = std::exp(-g * x) / (s * (1.0 + 2.0 * g / std::numbers::sqrt3));
    return std::array<C, 2>{u, u / (1.0 + s)};
  };
  // The contour s(th) = r th (cot th + i), th in (-pi, pi), r = 2 M / (5 tau); its
  // trapezoidal sum with the real node at th = 0 counted half.
  const double r = 2.0 * kNodes / (5.0 * tau);
  const auto f0 = transform(C(r, 0));
  std::array<double, 2> sum{0.5 * std::exp(r * tau) * f0[0].real(),
                            0.5 * std::exp(r * tau) * f0[1].real()};
  for (int k = 1; k < kNodes; ++k) {
    const double th = k * std::numbers::pi / kNodes;
    const double cot = std::cos(th) / std::sin(th);
    const C s = r * th * C(cot, 1);
    const double sigma = th + (th * cot - 1) * cot;  // d s / d th = i r (1 + i sigma)
    const C w = std::exp(tau * s) * C(1, sigma);
    const auto f = transform(s);
    sum[0] += (w * f[0]).real();
    sum[1] += (w * f[1]).real();
  }
  return {r / kNodes * sum[0], r / kNodes * sum[1]};
}

}  // namespace radhydro
