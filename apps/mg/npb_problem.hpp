#pragma once
// The NAS MG problem classes: grid size, iterations, smoother and published verification
// value, exactly as NPB 3.4 defines them.

#include <array>
#include <optional>
#include <string>

namespace tessera::mg {

/// The 27-point operator A (a) and smoother S (c) coefficients by distance class: centre,
/// faces, edges, corners. NPB's kernels leave out a[1] and c[3], which are zero.
using Coefficients = std::array<double, 4>;

struct ProblemClass {
  char name = 'U';  ///< S, W, A, B, C, or U (no published value)
  int nx = 0;       ///< cells per axis
  int nit = 0;      ///< V-cycle iterations
  /// NPB's verification value of the final residual norm (absent for class U).
  std::optional<double> verify_value;
};

/// The class NPB assigns to a grid of nx^3 cells and nit iterations: a named class when
/// both match its definition, U otherwise.
ProblemClass classify(int nx, int nit);
/// The definition of class S, W, A, B or C; std::nullopt for another letter.
std::optional<ProblemClass> class_definition(char name);

/// A: -8/3 at the centre, 0 on faces, 1/6 on edges, 1/12 on corners.
Coefficients operator_coefficients();
/// NPB's smoother S(a) for classes S, W and A, S(b) for every other class (U included).
Coefficients smoother_coefficients(char class_name);

/// NPB's relative tolerance on the verification value.
inline constexpr double kVerifyEpsilon = 1.0e-8;
/// NPB's operation count per grid point and iteration (Mop/s = 58 nit nx^3 / t / 1e6).
inline constexpr double kOpsPerPointIteration = 58.0;

}  // namespace tessera::mg
