#pragma once
// The ideal-gas equation of state with ratio of specific heats gamma and mean molecular
// weight mu: p = (gamma - 1) rho e and T = (gamma - 1) mu m_p e / k_B for the specific
// internal energy e. One EOS for pressure, sound speed and temperature alike (HARD v1.0
// hard-wires the specific heat to 2.0 in its EOS while its initial data use mu; tessera
// does not).

#include <cmath>

#include "hydro/physical_constants.hpp"

namespace hydro {

/// Pure and cheap: callable from any task, concurrently. gamma > 1 and mu > 0 are the
/// caller's to check (the apps validate their options).
struct IdealGas {
  double gamma = 1.4;
  double mu = 1.0;

  /// Pressure from the internal energy per volume rho e.
  double pressure(double internal_energy_density) const {
    return (gamma - 1) * internal_energy_density;
  }
  /// Internal energy per volume rho e from the pressure.
  double internal_energy_density(double p) const { return p / (gamma - 1); }
  double sound_speed(double rho, double p) const { return std::sqrt(gamma * p / rho); }
  /// Temperature in K of gas at density rho and pressure p: p mu m_p / (rho k_B).
  double temperature(double rho, double p) const {
    return p * mu * kProtonMass / (rho * kBoltzmann);
  }
  /// Specific internal energy e at temperature T: k_B T / ((gamma - 1) mu m_p).
  double specific_energy(double temperature) const {
    return kBoltzmann * temperature / ((gamma - 1) * mu * kProtonMass);
  }
  /// Heat capacity per volume d(rho e)/dT at density rho.
  double heat_capacity(double rho) const {
    return rho * kBoltzmann / ((gamma - 1) * mu * kProtonMass);
  }
};

}  // namespace hydro
