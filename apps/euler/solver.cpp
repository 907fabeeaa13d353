#include "solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hydro/riemann_exact.hpp"
#include "outputs.hpp"
#include "refinement.hpp"
#include "tessera/restart.hpp"

namespace euler {

namespace {

// Sedov-Taylor radius R = xi0 (E t^2 / rho)^(1 / (d + 2)) for gamma = 1.4, where
// E = alpha rho R^(d+2) / t^2 and alpha = 0.851 (spherical) or 0.984 (cylindrical): the
// constants of Kamm & Timmes, "On efficient generation of numerically robust Sedov
// solutions" (LA-UR-07-2849). Other gammas have no radius here (-1).
double sedov_taylor_radius(int dim, double gamma, double energy, double t) {
  if (std::fabs(gamma - 1.4) > 1e-12) return -1;
  const double alpha = dim == 3 ? 0.851 : 0.984;
  return std::pow(energy * t * t / alpha, 1.0 / (dim + 2));
}

}  // namespace

std::vector<tessera::FieldSpec> declared_fields(int ghost) {
  // Per-volume densities; the momentum components flip sign at a reflecting wall. U is the
  // state; U* (the half-step state) is scratch. Both get their fluxes corrected.
  const std::vector<int> vector_axis{-1, 0, 1, 2, -1};
  const std::vector<std::string> names{"rho", "mom_x", "mom_y", "mom_z", "energy"};
  return {{"U", kVars, tessera::Amount::per_volume, true, ghost, vector_axis, true, names},
          {"U*", kVars, tessera::Amount::per_volume, true, ghost, vector_axis, false}};
}

tessera::AmrDriverOptions driver_options(const Options& o, const Geometry& geo, int ranks,
                                         nlohmann::json problem) {
  tessera::AmrDriverOptions d = o.driver;
  d.domain = geo;
  for (int a = 0; a < 3; ++a) d.root_blocks[a] = o.cells[a] / o.block_cells[a];
  d.block_cells = o.block_cells;
  d.periodic = geo.periodic;
  d.boundary = geo.boundary;
  d.max_level = o.max_level;
  d.block_slots = tessera::amr_block_slots_per_rank(d, o.max_blocks_per_rank, ranks);
  d.cfl = o.cfl;
  d.t_end = o.t_end;
  d.stage_phase = "hydro";
  // A DG cycle is one task per block: recording it saves little, and a submitted cycle's
  // exchange starts before the previous step's reduction completes (enclave tasking).
  if (o.scheme_name == "dg") d.replay = false;
  d.problem = std::move(problem);
  return d;
}

tessera::MemoryEstimate memory_needed(const Options& o, const tessera::AmrDriverOptions& d,
                                      int ranks, int threads) {
  constexpr double kDouble = sizeof(double), kHandleBytes = 256, kTaskBytes = 512;
  constexpr double kBlockBytes = 512;  // p4est's quadrant, the block's place, scans, faults
  const auto local = static_cast<double>(d.block_slots);
  tessera::MemoryEstimate need =
      tessera::amr_field_memory(d, declared_fields(o.ghost()), d.block_slots, ranks);
  double interior = 1, stored = 1, face_cells = 0, longest = 0;
  for (int a = 0; a < 3; ++a) {
    interior *= o.block_cells[a];
    stored *= o.block_cells[a] + 2 * (a < o.dim ? o.ghost() : 0);
  }
  for (int a = 0; a < o.dim; ++a) {
    face_cells += 2 * interior / o.block_cells[a];
    longest = std::max(longest, o.block_cells[a] + 2.0 * o.ghost());
  }
  double handles = 4, tasks = 8;  // per block: the slot's handles, a cycle's tasks
  if (o.stage_tasks == StageTasks::fused) {
    // A stage's scratch per thread: primitives, slopes, fluxes and the update of one block.
    need.add("scratch", threads * (3 * kVars * stored) * kDouble);
  } else {
    // Per block: the primitives (with ghosts), each axis's term and, for flux correction,
    // each axis's face fluxes; per thread a pencil's primitives, slopes and fluxes.
    const double faces = o.max_level > 0 ? kVars * face_cells : 0;
    need.add("stage buffers",
             (kVars * stored + o.dim * kVars * interior + faces) * kDouble * local);
    need.add("scratch", threads * (3 * kVars * longest) * kDouble);
    handles += 1 + o.dim;
    tasks += 2 * (1 + o.dim);  // a stage's one task becomes dim + 2
  }
  need.add("metadata", local * (kBlockBytes + handles * kHandleBytes + tasks * kTaskBytes));
  return need;
}

Solver::Solver(tessera::Session& session, const Options& options)
    : session_(session), options_(options), geo_(make_geometry(options)) {}

std::vector<tessera::StageSpec> Solver::stages() const {
  // VL2: the predictor updates U* from U over half the step, the corrector U from U*. RK2:
  // U* from U over the whole step, U from half of U* and its step.
  if (options_.integrator == Integrator::rk2) return {{0, 1, 1.0}, {1, 0, 0.5}};
  return {{0, 1, 0.5}, {1, 0, 1.0}};
}

void Solver::blocks_changed(tessera::AmrDriver& driver, std::int32_t blocks) {
  const auto n = static_cast<std::size_t>(blocks);
  for (auto& faults : stage_faults_) faults.assign(n, CellFault{});
  scan_faults_.assign(n, CellFault{});
  if (options_.stage_tasks != StageTasks::split) return;
  const tessera::BlockShape& shape = driver.mesh().shape();
  const tessera::FluxRegister layout(shape, kVars);
  stage_buffers_.resize(n);
  for (std::size_t b = 0; b < n; ++b) {
    StageBuffers& buf = stage_buffers_[b];
    if (!buf.w.empty()) continue;
    buf.w.resize(primitive_layout(shape).size());
    buf.w_handle = session_.runtime().create_handle(fmt::format("euler.w{}", b));
    for (std::size_t a = 0; a < static_cast<std::size_t>(options_.dim); ++a) {
      buf.term[a].resize(kVars * shape.interior_cells());
      if (options_.max_level > 0)
        buf.faces[a].resize(layout.offset[2 * a + 2] - layout.offset[2 * a]);
      buf.term_handles[a] = session_.runtime().create_handle(fmt::format("euler.term{}.{}", b, a));
    }
  }
}

void Solver::submit_initial_state(tessera::AmrDriver& driver, const tessera::SolverBlock& b) {
  session_.runtime().submit(
      "euler_init", {tessera::write(driver.mesh().interior(b.index, 0))}, [this, b] {
        const auto sv = static_cast<std::size_t>(b.shape->layout().stride_var());
        double u[kVars];
        tessera::for_each_cell(b, [&](const std::array<std::int64_t, 3>& g, std::size_t c) {
          initial_state(options_, geo_, g, u, b.place->level);
          for (int q = 0; q < kVars; ++q) b.data[c + q * sv] = u[q];
        });
      });
}

tessera::Refinement Solver::refinement(const tessera::SolverBlock& b) const {
  const double eps = options_.criterion == Criterion::pressure
                         ? pressure_indicator(*b.shape, options_.dim, b.data, 0, options_.gamma)
                         : refinement_indicator(*b.shape, options_.dim, b.data, 0, options_.gamma);
  return static_cast<tessera::Refinement>(
      refinement_wish(eps, options_.refine_above, options_.derefine_below));
}

tessera::StepEstimate Solver::time_step(const tessera::SolverBlock& b) const {
  const auto i = static_cast<std::size_t>(b.index);
  const ScanResult scan = scan_block(*b.shape, options_.dim, b.data, 0, b.dx, options_.gamma);
  scan_faults_[i] = scan.fault;
  return {scan.dt, scan.fault.bad || stage_faults_[0][i].bad || stage_faults_[1][i].bad};
}

void Solver::describe_fault(tessera::AmrDriver& driver) {
  tessera::AmrMesh& mesh = driver.mesh();
  for (tessera::LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    const auto i = static_cast<std::size_t>(b);
    // The block's first fault in the cycle's order.
    const std::pair<const CellFault*, const char*> faults[] = {
        {&stage_faults_[0][i], "the predictor's input"},
        {&stage_faults_[1][i], options_.integrator == Integrator::vl2 ? "the half-step state"
                                                                      : "the first stage's state"},
        {&scan_faults_[i], "the updated state"}};
    const auto* first = std::find_if(std::begin(faults), std::end(faults),
                                     [](const auto& f) { return f.first->bad; });
    if (first == std::end(faults)) continue;
    const auto [fault, when] = *first;
    const tessera::BlockPlace& p = mesh.place(b);
    const auto box = mesh.forest().unit_box(p);
    std::array<double, 3> corner{};
    for (int a = 0; a < 3; ++a) corner[a] = geo_.lo[a] + box[a][0] * (geo_.hi[a] - geo_.lo[a]);
    fmt::print(stderr,
               "euler: error: non-positive density or pressure at cycle {} (t = {:.9g}) in "
               "{}: block at level {} with lower corner ({:.6g}), cell ({}) of the block: rho = "
               "{:.6g}, p = {:.6g} (rank {})\n",
               driver.cycle(), driver.time(), when, p.level, fmt::join(corner, ", "),
               fmt::join(fault->cell, ", "), fault->rho, fault->p, session_.rank());
    break;
  }
}

void Solver::finished(tessera::AmrDriver& driver) {
  tessera::AmrMesh& mesh = driver.mesh();
  const double time = driver.time();
  const double cells = static_cast<double>(geo_.cells[0]) * geo_.cells[1] * geo_.cells[2];
  if (options_.problem == Problem::sod) {
    const hydro::ExactRiemann exact({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, options_.gamma);
    const int axis = options_.axis;
    sod_l1_ =
        volume_sums(session_, mesh, options_.dim, 1,
                    [&](int level, const auto& g, const double* u, std::size_t, const auto& add) {
                      const double x = geo_.centre(axis, g[axis], level);
                      add(0, std::fabs(u[0] - exact.sample(x / time).rho));
                    })[0] /
        cells;
  }
  if (options_.problem == Problem::density_wave) {
    const std::vector<double> sums =
        volume_sums(session_, mesh, options_.dim, 2,
                    [&](int level, const auto& g, const double* u, std::size_t, const auto& add) {
                      const double e = u[kRho] - density_wave_mean(geo_, g, level, time);
                      add(0, std::fabs(e));
                      add(1, e * e);
                    });
    wave_errors_ = {sums[0] / cells, std::sqrt(sums[1] / cells)};
  }
  if (options_.problem == Problem::sedov) {
    const RadialProfile profile = radial_profile(session_, mesh, options_, geo_);
    const auto peak = std::max_element(profile.rho.begin(), profile.rho.end());
    sedov_radius_ = profile.r.empty() ? -1 : profile.r[std::size_t(peak - profile.rho.begin())];
    sedov_analytic_ =
        sedov_taylor_radius(options_.dim, options_.gamma, options_.sedov_energy, time);
    if (!options_.lineout.empty()) write_radial_profile(session_, profile, options_.lineout);
  } else if (!options_.lineout.empty()) {
    write_cell_lineout(session_, mesh, geo_, 0, primitive_quantities(options_.gamma),
                       options_.problem == Problem::sod ? options_.axis : 0, options_.lineout);
  }
  session_.say(
      "Summary: euler {} {}-D cells {} blocks {} ranks {} threads {} cycles {} t {:.6g} "
      "zone-cycles/s {:.4g} checksum {}",
      options_.problem_name, options_.dim, static_cast<std::int64_t>(driver.global_cells()),
      mesh.forest().global_count(), session_.size(), session_.runtime().threads(), driver.cycle(),
      time, driver.zone_cycles_per_second(), tessera::hex_bits(driver.end_totals().checksum));
  if (sod_l1_ >= 0) session_.say("Sod L1 density error {:.6e}", sod_l1_);
  if (sedov_radius_ >= 0)
    session_.say("Sedov shock radius {:.6g} (Sedov-Taylor {:.6g})", sedov_radius_, sedov_analytic_);
}

nlohmann::json Solver::report(const tessera::AmrDriver& driver) const {
  const auto totals_json = [](const tessera::StateTotals& t) {
    const std::vector<double>& u = t.integral;
    return nlohmann::json{{"mass", u[0]}, {"momentum", {u[1], u[2], u[3]}}, {"energy", u[4]}};
  };
  nlohmann::json j;
  j["problem"] = options_.problem_name;
  j["dim"] = options_.dim;
  j["totals_start"] = totals_json(driver.start_totals());
  j["totals_end"] = totals_json(driver.end_totals());
  if (sod_l1_ >= 0) j["sod_l1_density_error"] = sod_l1_;
  if (wave_errors_[0] >= 0) j["l1_rho"] = wave_errors_[0], j["l2_rho"] = wave_errors_[1];
  if (sedov_radius_ >= 0) {
    j["sedov_shock_radius"] = sedov_radius_;
    j["sedov_analytic_radius"] = sedov_analytic_ >= 0 ? nlohmann::json(sedov_analytic_) : nullptr;
  }
  return j;
}

}  // namespace euler
