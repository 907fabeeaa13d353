#pragma once
// Physical constants in cgs units, the values HARD uses (app/constants.hh), so that both
// codes solve the same radiation-hydrodynamics problems.

namespace hydro {

inline constexpr double kSpeedOfLight = 2.99792458e10;        ///< c, cm/s
inline constexpr double kRadiationConstant = 7.56573325e-15;  ///< a, erg/(cm^3 K^4)
inline constexpr double kBoltzmann = 1.380649e-16;            ///< k_B, erg/K
inline constexpr double kProtonMass = 1.67262192369e-24;      ///< m_p, g

}  // namespace hydro
