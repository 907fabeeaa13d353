#pragma once
// The per-block kernels of the radhydro app: initial data, physical boundaries, one
// Heun / SSP-RK2 stage of HARD's hydro scheme (WENO5-Z on the primitives, HLL with Davis
// speeds), the time-step scan, and the sums behind the report (totals, L1 errors). Pure
// functions of a block's data: a block gives the same bits on any rank and thread.

#include <array>
#include <optional>

#include "hydro/ideal_gas.hpp"
#include "problems.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/mesh/block_layout.hpp"

namespace radhydro {

/// Variables of the state field: density, momentum (x, y, z), total gas energy and, with
/// radiation, the radiation energy density.
enum Var : int { kRho = 0, kMomX = 1, kEnergy = 4, kEr = 5 };
inline constexpr int kHydroVars = 5;
/// Ghost layers of the state fields: WENO5-Z reads three cells on each side of a face.
inline constexpr int kGhost = 3;

/// What every kernel needs to know about the discretisation.
struct Scheme {
  hydro::IdealGas gas;
  int nvars = kHydroVars;  ///< 5, or 6 with radiation (E_r advected with the gas)
  int dim = 1;             ///< axes 0 .. dim-1 carry fluxes; the others are flat
  std::array<double, 3> dx{1, 1, 1};
  /// Face states as HARD builds them (c and e reconstructed like the primitives, the face
  /// energy rho e + rho |u|^2 / 2), or (false) c and the energy from the reconstructed p
  /// by the EOS.
  bool hard_faces = true;
  /// With radiation (nvars 6): the explicit radiation force -lambda grad E_r on the
  /// momentum, its work -lambda v . grad E_r on the gas energy and -f E_r div v on E_r
  /// (f = lambda + lambda^2 R^2, the Eddington factor), added to K in each stage.
  bool radiation_force = false;
  double kappa = 0.4;   ///< opacity, cm^2/g (R = |grad E_r| / (kappa rho E_r))
  bool limiter = true;  ///< Levermore-Pomraning lambda(R); false: 1/3
  /// Su-Olson's material (marshak): eps = 4 a T^3 / c_v with c_v per volume, i.e. the gas
  /// energy a T^4 / eps per volume, T = (eps rho e / a)^(1/4); 0: the ideal gas's T.
  double su_olson_epsilon = 0;

  /// Temperature of a cell of density rho and pressure p (gas energy p / (gamma - 1)).
  double temperature(double rho, double p) const;
};

/// A cell whose density or pressure is not positive (or not finite).
struct CellFault {
  bool bad = false;
  std::array<int, 3> cell{};  ///< block-local index (negative or >= cells: a ghost)
  double rho = 0, p = 0;
};

/// Physical position of block cell (0, 0, 0)'s lower corner.
using Corner = std::array<double, 3>;

/// The centre of block cell (i, j, k).
inline std::array<double, 3> cell_centre(const Corner& corner, const Scheme& scheme, int i, int j,
                                         int k) {
  return {corner[0] + (i + 0.5) * scheme.dx[0], corner[1] + (j + 0.5) * scheme.dx[1],
          corner[2] + (k + 0.5) * scheme.dx[2]};
}

/// Writes the problem's initial conserved state into the block's interior.
void fill_initial(const tessera::BlockLayout& layout, const Scheme& scheme, const Problem& problem,
                  const Corner& corner, double* u);

/// Fills the ghost cells of the block's faces that lie on the domain's boundary:
/// faces[2 a + side] is the boundary there (std::nullopt: a neighbour block, or periodic).
/// flow copies the first interior cell into every ghost layer (HARD's zero gradient);
/// reflecting mirrors the cells, negating the normal momentum.
void fill_boundaries(const tessera::BlockLayout& layout, const Scheme& scheme,
                     const std::array<std::optional<Boundary>, 6>& faces, double* u);

/// One stage on a block. From `src` (face ghosts filled) the flux divergence K(src):
///   stage 1 (base == nullptr): dst = src + dt K(src)
///   stage 2:                   dst = (base + (src + dt K(src))) / 2      (dst may be base)
/// for the interior cells. With `implicit_in` (IMEX-SSP2(2,2,2)'s explicit part, see
/// ImexStage) the update is ImexStage's instead. Returns the first cell (src, ghosts
/// included, then `next_in` if given, else dst) whose density or pressure is not positive;
/// dst is then partly written. `max_speed`, if not null, gets the largest |v| + c over
/// dst's interior.
struct StageArgs {
  const tessera::BlockLayout* layout = nullptr;
  const Scheme* scheme = nullptr;
  const double* src = nullptr;
  const double* base = nullptr;
  double* dst = nullptr;
  double dt = 0;
  double* max_speed = nullptr;
  /// IMEX-SSP2(2,2,2) (null: Heun as above). src is the implicit stage's solution of
  /// src = X + g dt G(src) from its input X = implicit_in, so dt G(src) = (src - X) / g
  /// (g = imex_gamma). Then, per variable of the interior,
  ///   dst = base + (dt K(src) + (src - X) / g) / 2                 (dst may be base or X)
  ///   next_in = X + dt K(src) + (1 - 2 g) (src - X) / g             (if next_in is set)
  /// next_in is the second implicit stage's input (stage 1, X = base = U^n); the second
  /// stage (X = that input, base = dst = the first's dst) completes U^{n+1}.
  const double* implicit_in = nullptr;
  double* next_in = nullptr;
  double imex_gamma = 0;
};

/// IMEX-SSP2(2,2,2)'s gamma (Pareschi & Russo 2005): 1 - 1/sqrt(2), HARD's.
inline constexpr double kImexGamma = 0.29289321881345247559915563789515;
CellFault hydro_stage(const StageArgs& args);

/// The largest |v| + c over the block's interior (the dt bound is min dx / this), and the
/// first cell with non-positive density or pressure.
double max_signal_speed(const tessera::BlockLayout& layout, const Scheme& scheme, const double* u,
                        CellFault& fault);

/// Per-block sums for the report: totals[v] += u_v * cell volume for every variable, and
/// checksum += the square of every variable of every interior cell (squares: a sum of
/// the conserved variables would hardly change).
struct BlockSums {
  std::array<tessera::ExactSum, 6> totals;
  tessera::ExactSum checksum;
};
void add_sums(const tessera::BlockLayout& layout, const Scheme& scheme, const double* u,
              BlockSums& sums);

/// |rho - rho_ref|, |v_axis - v_ref| and |p - p_ref| summed over the block's interior
/// against the problem's reference at time t.
void add_errors(const tessera::BlockLayout& layout, const Scheme& scheme, const Problem& problem,
                const Corner& corner, double t, const double* u,
                std::array<tessera::ExactSum, 3>& errors);

/// The primitive state of one cell (density, velocity, pressure) and its temperature.
struct CellPrimitive {
  double rho, vx, vy, vz, p, temperature, er;
};
CellPrimitive cell_primitive(const tessera::BlockLayout& layout, const Scheme& scheme,
                             const double* u, int i, int j, int k);

}  // namespace radhydro
