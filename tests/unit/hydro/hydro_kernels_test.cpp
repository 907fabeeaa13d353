// The hydro kernels euler and radhydro share (apps/hydro): WENO5-Z's order of accuracy (both
// forms) and its behaviour at a jump, the consistency, upwinding and mirror symmetry of HLL,
// HLLE and HLLC, the exact Riemann solver's star states, and the ideal-gas EOS's temperature.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "hydro/hll.hpp"
#include "hydro/hllc.hpp"
#include "hydro/ideal_gas.hpp"
#include "hydro/riemann_exact.hpp"
#include "hydro/weno5z.hpp"

namespace {

// Largest error of the right-face values of sin(2 pi x) + 2 sampled at n points per period.
double weno_face_error(int n) {
  const double h = 1.0 / n;
  const auto f = [](double x) { return std::sin(2 * std::numbers::pi * x) + 2; };
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const double face = hydro::weno5z_face(f((i - 2) * h), f((i - 1) * h), f(i * h), f((i + 1) * h),
                                           f((i + 2) * h));
    worst = std::max(worst, std::abs(face - f((i + 0.5) * h)));
    // The left face from the mirrored stencil.
    const double left = hydro::weno5z_face(f((i + 2) * h), f((i + 1) * h), f(i * h), f((i - 1) * h),
                                           f((i - 2) * h));
    worst = std::max(worst, std::abs(left - f((i - 0.5) * h)));
  }
  return worst;
}

TEST(Weno5z, FifthOrderOnSmoothData) {
  const double e32 = weno_face_error(32), e64 = weno_face_error(64), e128 = weno_face_error(128);
  EXPECT_GT(std::log2(e32 / e64), 4.5) << e32 << " " << e64;
  EXPECT_GT(std::log2(e64 / e128), 4.5) << e64 << " " << e128;
  EXPECT_LT(e128, 1e-8);
}

// Largest error of the right-face values reconstructed from the cell means of
// sin(2 pi x) + 2 on n cells per period, by `face` (weno5z_face or weno5z_mean_face).
template <class Face>
double weno_mean_error(int n, Face face) {
  const double h = 1.0 / n, pi = std::numbers::pi;
  const auto mean = [&](int i) {  // exact mean over [(i - 1/2) h, (i + 1/2) h]
    return 2 + (std::cos(2 * pi * (i - 0.5) * h) - std::cos(2 * pi * (i + 0.5) * h)) / (2 * pi * h);
  };
  double worst = 0;
  for (int i = 0; i < n; ++i)
    worst =
        std::max(worst, std::abs(face(mean(i - 2), mean(i - 1), mean(i), mean(i + 1), mean(i + 2)) -
                                 (std::sin(2 * pi * (i + 0.5) * h) + 2)));
  return worst;
}

TEST(Weno5z, MeanFormIsFifthOrderFromCellMeansWherePointFormIsSecond) {
  const auto mean_form = [](double a, double b, double c, double d, double e) {
    return hydro::weno5z_mean_face(a, b, c, d, e);
  };
  const auto point_form = [](double a, double b, double c, double d, double e) {
    return hydro::weno5z_face(a, b, c, d, e);
  };
  const double m32 = weno_mean_error(32, mean_form), m64 = weno_mean_error(64, mean_form);
  EXPECT_GT(std::log2(m32 / m64), 4.5) << m32 << " " << m64;
  const double p32 = weno_mean_error(32, point_form), p64 = weno_mean_error(64, point_form);
  EXPECT_NEAR(std::log2(p32 / p64), 2.0, 0.2) << p32 << " " << p64;
  EXPECT_EQ(hydro::weno5z_mean_face(1, 1, 1, 1, 1), 1.0);
  // A jump: no new extremum.
  const double face = hydro::weno5z_mean_face(1, 1, 1, 0, 0);
  EXPECT_LE(face, 1.0 + 1e-15);
  EXPECT_GE(face, 1.0 - 1e-6);
}

TEST(Weno5z, ConstantDataIsExactAndJumpsDoNotOvershoot) {
  EXPECT_EQ(hydro::weno5z_face(1, 1, 1, 1, 1), 1.0);
  // A jump right of the cell: the face takes the smooth side's value, no new extremum.
  const double face = hydro::weno5z_face(1, 1, 1, 0, 0);
  EXPECT_NEAR(face, 1.0, 1e-12);
  EXPECT_LE(face, 1.0 + 1e-15);
  const double across = hydro::weno5z_face(1, 1, 0, 0, 0);
  EXPECT_GE(across, -1e-15);
  EXPECT_LE(across, 1e-12);
}

// Every component of f within 1e-14 (1 + |energy flux|) of e; `un` labels the case.
void expect_same_flux(const hydro::FaceFlux& f, const hydro::FaceFlux& e, double un) {
  const double scale = 1e-14 * (1 + std::abs(e.energy));
  EXPECT_NEAR(f.mass, e.mass, scale) << un;
  EXPECT_NEAR(f.momentum_n, e.momentum_n, scale) << un;
  EXPECT_NEAR(f.momentum_t1, e.momentum_t1, scale) << un;
  EXPECT_NEAR(f.momentum_t2, e.momentum_t2, scale) << un;
  EXPECT_NEAR(f.energy, e.energy, scale) << un;
  EXPECT_NEAR(f.radiation, e.radiation, scale) << un;
}

TEST(Hll, ConsistentWithThePhysicalFlux) {
  const hydro::IdealGas gas{1.4, 1.0};
  for (double un : {-3.0, -0.5, 0.0, 0.7, 2.5}) {
    hydro::FaceState s{0.8, un, 0.3, -0.2, 1.3, 0, 0.25};
    s.c = gas.sound_speed(s.rho, s.p);
    expect_same_flux(hydro::hll_flux(s, s, gas), hydro::physical_flux(s, gas), un);
  }
}

TEST(Hll, SupersonicFlowTakesTheUpwindFlux) {
  const hydro::IdealGas gas{1.4, 1.0};
  hydro::FaceState l{1, 5, 0, 0, 1, 0, 0}, r{0.5, 4, 0, 0, 0.4, 0, 0};
  l.c = gas.sound_speed(l.rho, l.p);
  r.c = gas.sound_speed(r.rho, r.p);
  EXPECT_DOUBLE_EQ(hydro::hll_flux(l, r, gas).mass, hydro::physical_flux(l, gas).mass);
  l.un = -5;
  r.un = -4;
  EXPECT_DOUBLE_EQ(hydro::hll_flux(l, r, gas).energy, hydro::physical_flux(r, gas).energy);
}

TEST(Hllc, HlleAndHllcAreConsistentUpwindAndMirrorSymmetric) {
  const hydro::IdealGas gas{1.4, 1.0};
  using Flux =
      hydro::FaceFlux (*)(const hydro::FaceState&, const hydro::FaceState&, const hydro::IdealGas&);
  for (const Flux flux : {Flux{&hydro::hlle_flux}, Flux{&hydro::hllc_flux}}) {
    for (double un : {-3.0, -0.5, 0.0, 0.7, 2.5}) {
      const hydro::FaceState s{0.8, un, 0.3, -0.2, 1.3, 0, 0.25};
      expect_same_flux((*flux)(s, s, gas), hydro::physical_flux(s, hydro::eos_total_energy(s, gas)),
                       un);
    }
    // Supersonic to the right: the left state's flux.
    const hydro::FaceState l{1, 5, 0, 0, 1}, r{0.5, 4, 0, 0, 0.4};
    EXPECT_DOUBLE_EQ((*flux)(l, r, gas).mass, l.rho * l.un);
    // The mirror image (sides swapped, normal velocities negated) negates the mass flux
    // exactly; at a wall (mirror states) no mass crosses.
    const hydro::FaceState a{1, 0.3, 0.1, 0, 1}, b{0.4, -0.2, 0.5, 0, 0.3};
    const hydro::FaceState ma{1, -0.3, 0.1, 0, 1}, mb{0.4, 0.2, 0.5, 0, 0.3};
    EXPECT_EQ((*flux)(a, b, gas).mass, -(*flux)(mb, ma, gas).mass);
    EXPECT_EQ((*flux)(a, ma, gas).mass, 0.0);
  }
}

TEST(ExactRiemann, StarStatesOfSodAndRankineHugoniot) {
  const hydro::ExactRiemann sod({1, 0, 1}, {0.125, 0, 0.1}, 1.4);
  EXPECT_NEAR(sod.p_star(), 0.30313, 1e-5);  // Toro, table 4.2
  EXPECT_NEAR(sod.u_star(), 0.92745, 1e-5);
  const hydro::ExactRiemann rh({1, 0, 1}, {0.25, 0, 0.1795}, 1.4);
  EXPECT_NEAR(rh.p_star(), 0.429346, 1e-6);
  EXPECT_NEAR(rh.u_star(), 0.673103, 1e-6);
  // Far from the fan: the initial states.
  EXPECT_EQ(sod.sample(-10).rho, 1.0);
  EXPECT_EQ(sod.sample(10).p, 0.1);
}

TEST(IdealGas, TemperatureAndSpecificEnergyAreInverse) {
  const hydro::IdealGas gas{5.0 / 3, 0.5};
  for (double t : {1e3, 1e4, 4.2e7}) {
    const double rho = 1e-2;
    const double p = gas.pressure(rho * gas.specific_energy(t));
    EXPECT_NEAR(gas.temperature(rho, p), t, 1e-12 * t);
    EXPECT_NEAR(gas.heat_capacity(rho) * t, rho * gas.specific_energy(t), 1e-12 * p);
  }
}

}  // namespace
