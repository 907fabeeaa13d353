#include "dg_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dg/boundary_trace.hpp"
#include "dg/element_error.hpp"
#include "dg/element_projection.hpp"
#include "dg/element_transfer.hpp"
#include "dg/tensor_ops.hpp"
#include "tessera/comm/exact_sum.hpp"

namespace euler {

namespace {

using Size = std::size_t;

dg::SmoothProblem smooth_problem(const Options& o) {
  if (o.problem_name == "isentropic-vortex") return dg::SmoothProblem::isentropic_vortex;
  if (o.problem_name == "smooth-blobs") return dg::SmoothProblem::smooth_blobs;
  if (o.problem_name == "uniform") return dg::SmoothProblem::uniform;
  return dg::SmoothProblem::density_wave;
}

int element_nodes(const Options& o) {
  return dg::tensor_size(o.order + 1, o.dim);
}

/// One thread's scratch for a block's stage: the predictor's workspace, one element, its
/// time averages and traces, and the traces on every face of the block (per axis: the
/// faces 0..cells along it times the cells across, two sides each).
struct StageScratch {
  int order = -1, dim = 0;
  std::array<int, 3> cells{};
  std::unique_ptr<dg::AderWorkspace> ws;
  std::vector<double> u, q_avg, flux_avg, traces, flux;
  std::array<std::vector<double>, 3> faces;

  void fit(int p, int d, const std::array<int, 3>& c) {
    if (p == order && d == dim && c == cells) return;
    order = p, dim = d, cells = c;
    const int n = p + 1;
    const Size block = dg::kNodeVars * static_cast<Size>(dg::tensor_size(n, d));
    const Size trace = static_cast<Size>(dg::face_trace_size(n, d));
    ws = std::make_unique<dg::AderWorkspace>(p, d);
    u.resize(block);
    q_avg.resize(block);
    flux_avg.resize(static_cast<Size>(d) * block);
    traces.resize(2 * static_cast<Size>(d) * trace);
    flux.resize(trace / 2);
    for (int a = 0; a < d; ++a) {
      const Size across = static_cast<Size>(c[0]) * static_cast<Size>(c[1]) *
                          static_cast<Size>(c[2]) / static_cast<Size>(c[static_cast<Size>(a)]);
      faces[static_cast<Size>(a)].resize((static_cast<Size>(c[static_cast<Size>(a)]) + 1) * across *
                                         2 * trace);
    }
  }
};

/// Index of the cell (i, j, k) among the cells across axis a.
Size across_index(const std::array<int, 3>& cells, int a, int i, int j, int k) {
  if (a == 0) return static_cast<Size>(j + cells[1] * k);
  if (a == 1) return static_cast<Size>(i + cells[0] * k);
  return static_cast<Size>(i + cells[0] * j);
}

}  // namespace

Geometry dg_geometry(const Options& o) {
  Geometry geo;
  geo.dim = o.dim;
  geo.cells = o.cells;
  const dg::Box box = dg::problem_box(smooth_problem(o), o.dim);
  for (int a = 0; a < 3; ++a) {
    geo.lo[a] = a < o.dim ? box.lo[static_cast<Size>(a)] : -0.5;
    geo.hi[a] = a < o.dim ? box.hi[static_cast<Size>(a)] : 0.5;
    geo.dx[a] = (geo.hi[a] - geo.lo[a]) / geo.cells[a];
  }
  // The problems are periodic; --boundary outflow | reflecting puts walls on every face
  // (advance_block builds their outer traces, the driver's ghost elements there go unused).
  const bool walls = o.boundary_name == "outflow" || o.boundary_name == "reflecting";
  for (int a = 0; a < 3; ++a) geo.periodic[a] = !walls;
  for (auto& b : geo.boundary)
    b = o.boundary_name == "reflecting" ? tessera::BoundaryKind::reflecting
                                        : tessera::BoundaryKind::outflow;
  return geo;
}

std::vector<tessera::FieldSpec> dg_fields(const Options& o) {
  const int nodes = element_nodes(o);
  // No vector components: the ghost elements on a wall are not read (boundary_trace).
  std::vector<int> vector_axis(static_cast<Size>(dg::kNodeVars * nodes), -1);
  // Elements cross level jumps by the exact L2 projections; the face fluxes at level jumps
  // are corrected (dg/element_transfer.hpp).
  tessera::FieldSpec u{
      "U", dg::kNodeVars * nodes, tessera::Amount::custom, o.max_level > 0, 1, vector_axis, true};
  u.transfer = std::make_shared<const dg::ElementTransfer>(o.order, o.dim);
  return {u};
}

tessera::MemoryEstimate dg_memory_needed(const Options& o, const tessera::AmrDriverOptions& d,
                                         int ranks, int threads) {
  constexpr double kDouble = sizeof(double), kHandleBytes = 256, kTaskBytes = 512;
  constexpr double kBlockBytes = 512;
  tessera::MemoryEstimate need = tessera::amr_field_memory(d, dg_fields(o), d.block_slots, ranks);
  const double n = o.order + 1, nodes = element_nodes(o);
  const double block = dg::kNodeVars * nodes;
  double faces = 0;
  for (int a = 0; a < o.dim; ++a) {
    double across = 1;
    for (int b = 0; b < o.dim; ++b)
      if (b != a) across *= o.block_cells[static_cast<Size>(b)];
    faces += (o.block_cells[static_cast<Size>(a)] + 1) * across * 2 * 2 * dg::kNodeVars * nodes / n;
  }
  const double workspace = 4 * n * block + (2 + o.dim) * block + 4 * o.dim * block / n;
  need.add("scratch", threads * (faces + workspace) * kDouble);
  need.add("metadata",
           static_cast<double>(d.block_slots) * (kBlockBytes + 4 * kHandleBytes + 4 * kTaskBytes));
  return need;
}

DgSolver::DgSolver(tessera::Session& session, const Options& options)
    : session_(session),
      options_(options),
      geo_(dg_geometry(options)),
      problem_(smooth_problem(options)),
      flux_(options.riemann_name == "hllc" ? dg::FaceFlux::hllc : dg::FaceFlux::rusanov),
      ops_(std::make_unique<const dg::AderOperators>(options.order)),
      indicator_(ops_->basis, options.dim) {}

tessera::Refinement DgSolver::refinement(const tessera::SolverBlock& b) const {
  if (options_.criterion_name == "centre") {
    // The block's share of the domain against the central box (1/4, 3/4) per axis.
    bool inside = true;
    for (int a = 0; a < options_.dim; ++a) {
      const auto ua = static_cast<Size>(a);
      // The domain's length in forest coordinates: root blocks times kRootLength.
      const double domain =
          static_cast<double>(tessera::kRootLength) * geo_.cells[a] / b.shape->cells[ua];
      const double lo = static_cast<double>(b.place->origin[ua]) / domain;
      const double hi = static_cast<double>(b.place->origin[ua] + b.place->length()) / domain;
      inside = inside && hi > 0.25 && lo < 0.75;
    }
    return inside ? tessera::Refinement::refine : tessera::Refinement::coarsen;
  }
  thread_local std::vector<double> rho, scratch;
  const auto nodes = static_cast<Size>(element_nodes(options_));
  rho.resize(nodes);
  scratch.resize(3 * nodes);
  const auto sv = static_cast<Size>(b.shape->layout().stride_var());
  double largest = 0;
  tessera::for_each_cell(b, [&](const std::array<std::int64_t, 3>&, Size c) {
    for (Size node = 0; node < nodes; ++node) rho[node] = b.data[c + node * sv];
    largest = std::max(largest, indicator_(rho.data(), scratch.data()));
  });
  if (largest > options_.refine_above) return tessera::Refinement::refine;
  return largest < options_.derefine_below ? tessera::Refinement::coarsen
                                           : tessera::Refinement::keep;
}

void DgSolver::blocks_changed(tessera::AmrDriver& /*driver*/, std::int32_t blocks) {
  for (const BlockRecord& r : records_) retired_flops_ += r.flops;
  records_.assign(static_cast<Size>(blocks), BlockRecord{});
  scan_faults_.assign(static_cast<Size>(blocks), {-1, -1, -1});
}

void DgSolver::submit_initial_state(tessera::AmrDriver& driver, const tessera::SolverBlock& b) {
  session_.runtime().submit(
      "dg_init", {tessera::write(driver.mesh().interior(b.index, 0))}, [this, b] {
        const dg::ElementProjection projection(ops_->basis, options_.dim);
        const auto sv = static_cast<Size>(b.shape->layout().stride_var());
        const int points = projection.points();
        std::vector<double> samples(dg::kNodeVars * static_cast<Size>(points));
        std::vector<double> nodal(dg::kNodeVars * static_cast<Size>(element_nodes(options_)));
        const int level = b.place->level;
        tessera::for_each_cell(b, [&](const std::array<std::int64_t, 3>& g, Size c) {
          for (int q = 0; q < points; ++q) {
            const auto xi = projection.point(q);
            std::array<double, 3> x{};
            for (int a = 0; a < options_.dim; ++a) {
              const double h = std::ldexp(geo_.dx[a], -level);
              x[static_cast<Size>(a)] =
                  geo_.lo[a] +
                  (static_cast<double>(g[static_cast<Size>(a)]) + xi[static_cast<Size>(a)]) * h;
            }
            const dg::State s = dg::exact_state(problem_, options_.dim, x, 0);
            for (Size v = 0; v < dg::kNodeVars; ++v)
              samples[v * static_cast<Size>(points) + static_cast<Size>(q)] = s[v];
          }
          projection.project(samples.data(), dg::kNodeVars, nodal.data());
          for (Size v = 0; v < nodal.size(); ++v) b.data[c + v * sv] = nodal[v];
        });
      });
}

tessera::StepEstimate DgSolver::time_step(const tessera::SolverBlock& b) const {
  const tessera::BlockLayout l = b.shape->layout();
  const auto sv = static_cast<Size>(l.stride_var());
  std::vector<double> u(dg::kNodeVars * static_cast<Size>(element_nodes(options_)));
  double dt = INFINITY;
  const auto& c = b.shape->cells;
  for (int k = 0; k < c[2]; ++k)
    for (int j = 0; j < c[1]; ++j)
      for (int i = 0; i < c[0]; ++i) {
        const auto base = static_cast<Size>(l.index(0, i, j, k));
        for (Size v = 0; v < u.size(); ++v) u[v] = b.data[base + v * sv];
        const double e =
            dg::stable_dt(options_.order, options_.dim, u.data(), b.dx, options_.gamma, 1.0);
        if (!(e > 0)) {
          scan_faults_[static_cast<Size>(b.index)] = {i, j, k};
          return {0, true};
        }
        dt = std::min(dt, e);
      }
  return {dt, records_[static_cast<Size>(b.index)].fault};
}

bool DgSolver::on_wall(const tessera::SolverBlock& b, int axis, int side) const {
  const auto a = static_cast<Size>(axis);
  if (geo_.periodic[a]) return false;
  const std::int64_t first = b.place->origin[a] / b.place->length() * b.shape->cells[a];
  if (side == 0) return first == 0;
  return first + b.shape->cells[a] == static_cast<std::int64_t>(geo_.cells[a]) << b.place->level;
}

void DgSolver::advance_block(const tessera::SolverBlock& b, double dt, BlockRecord& record,
                             double* flux_register, const tessera::FluxRegister* layout) const {
  thread_local StageScratch s;
  const int dim = options_.dim, p = options_.order, n = p + 1;
  const std::array<int, 3> cells = b.shape->cells;
  s.fit(p, dim, cells);
  const dg::AderOperators& ops = *ops_;
  const tessera::BlockLayout l = b.shape->layout();
  const auto sv = static_cast<Size>(l.stride_var());
  const Size trace = static_cast<Size>(dg::face_trace_size(n, dim));
  const double gamma = options_.gamma;
  auto gather = [&](int i, int j, int k) {
    const auto base = static_cast<Size>(l.index(0, i, j, k));
    for (Size v = 0; v < s.u.size(); ++v) s.u[v] = b.data[base + v * sv];
  };
  auto scatter = [&](int i, int j, int k) {
    const auto base = static_cast<Size>(l.index(0, i, j, k));
    for (Size v = 0; v < s.u.size(); ++v) b.data[base + v * sv] = s.u[v];
  };
  // Face f along axis a, across index t: [side 0: the lower element's trace | side 1: the
  // upper element's]; after the fluxes, side 0 holds the numerical flux.
  auto face = [&](int a, int f, Size t) {
    const auto ua = static_cast<Size>(a);
    const Size across = s.faces[ua].size() / (2 * trace * static_cast<Size>(cells[ua] + 1));
    return s.faces[ua].data() + (static_cast<Size>(f) * across + t) * 2 * trace;
  };
  auto fail = [&](std::array<int, 3> cell) {
    record.fault = true;
    record.cell = cell;
  };
  // Interior elements: predictor, traces onto the faces, volume term.
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int i = 0; i < cells[0]; ++i) {
        gather(i, j, k);
        const dg::Prediction pr = dg::predict(ops, dim, s.u.data(), dt, b.dx, gamma, *s.ws,
                                              s.q_avg.data(), s.flux_avg.data());
        if (!pr.admissible) return fail({i, j, k});
        record.flops += dg::predictor_flops(p, dim, pr.iterations) + dg::corrector_flops(p, dim);
        dg::face_traces(ops, dim, s.q_avg.data(), s.flux_avg.data(), s.traces.data());
        const std::array<int, 3> idx{i, j, k};
        for (int a = 0; a < dim; ++a)
          for (int side = 0; side < 2; ++side) {
            const double* src = s.traces.data() + static_cast<Size>(2 * a + side) * trace;
            double* dst =
                face(a, idx[static_cast<Size>(a)] + side, across_index(cells, a, i, j, k)) +
                (side == 1 ? 0 : trace);
            std::copy(src, src + trace, dst);
          }
        dg::add_volume_term(ops, dim, s.flux_avg.data(), dt, b.dx, s.u.data());
        scatter(i, j, k);
      }
  // The ghost elements on the block's faces: their trace on the shared face. On a domain
  // wall, the outer trace comes from the inner element's trace on the face instead.
  for (int a = 0; a < dim; ++a)
    for (int side = 0; side < 2; ++side) {
      if (on_wall(b, a, side)) {
        const auto ua = static_cast<Size>(a);
        const Size across = s.faces[ua].size() / (2 * trace * static_cast<Size>(cells[ua] + 1));
        const int f = side == 0 ? 0 : cells[ua];
        const dg::BoundaryTrace kind =
            geo_.boundary[static_cast<Size>(2 * a + side)] == tessera::BoundaryKind::reflecting
                ? dg::BoundaryTrace::reflecting
                : dg::BoundaryTrace::outflow;
        for (Size t = 0; t < across; ++t) {
          double* fc = face(a, f, t);
          // Side 0 of the lower wall's face is outside, side 1 of the upper wall's.
          if (side == 0) {
            dg::boundary_trace(n, dim, a, kind, fc + trace, fc);
          } else {
            dg::boundary_trace(n, dim, a, kind, fc, fc + trace);
          }
        }
        continue;
      }
      std::array<int, 3> lo{0, 0, 0}, hi = cells;
      lo[static_cast<Size>(a)] = side == 0 ? -1 : cells[static_cast<Size>(a)];
      hi[static_cast<Size>(a)] = lo[static_cast<Size>(a)] + 1;
      for (int k = lo[2]; k < hi[2]; ++k)
        for (int j = lo[1]; j < hi[1]; ++j)
          for (int i = lo[0]; i < hi[0]; ++i) {
            gather(i, j, k);
            const dg::Prediction pr = dg::predict(ops, dim, s.u.data(), dt, b.dx, gamma, *s.ws,
                                                  s.q_avg.data(), s.flux_avg.data());
            if (!pr.admissible) return fail({i, j, k});
            record.flops += dg::predictor_flops(p, dim, pr.iterations);
            dg::face_traces(ops, dim, s.q_avg.data(), s.flux_avg.data(), s.traces.data());
            // The lower ghost is the lower element of face 0 (its upper trace); the upper
            // ghost the upper element of face cells[a] (its lower trace).
            const double* src =
                s.traces.data() + static_cast<Size>(2 * a + (side == 0 ? 1 : 0)) * trace;
            const int f = side == 0 ? 0 : cells[static_cast<Size>(a)];
            double* dst = face(a, f, across_index(cells, a, i, j, k)) + (side == 0 ? 0 : trace);
            std::copy(src, src + trace, dst);
          }
    }
  // The numerical fluxes of every face.
  for (int a = 0; a < dim; ++a) {
    const auto ua = static_cast<Size>(a);
    const Size across = s.faces[ua].size() / (2 * trace * static_cast<Size>(cells[ua] + 1));
    for (int f = 0; f <= cells[ua]; ++f)
      for (Size t = 0; t < across; ++t) {
        double* fc = face(a, f, t);
        if (!dg::face_flux(n, dim, a, fc, fc + trace, gamma, flux_, s.flux.data()))
          return fail({-1, -1, -1});
        std::copy(s.flux.begin(), s.flux.end(), fc);
      }
  }
  // The fluxes on the block's own faces, for the correction at level jumps: face (a, side)
  // holds, per face element (u, w) along the tangential axes, its kNodeVars x n^(dim-1) flux.
  if (flux_register != nullptr)
    for (int a = 0; a < dim; ++a) {
      const auto ua = static_cast<Size>(a);
      const Size across = s.faces[ua].size() / (2 * trace * static_cast<Size>(cells[ua] + 1));
      const int n0 = cells[a == 0 ? 1 : 0];
      for (int side = 0; side < 2; ++side)
        for (Size t = 0; t < across; ++t) {
          const double* fc = face(a, side == 0 ? 0 : cells[ua], t);
          const int u = static_cast<int>(t) % n0, w = static_cast<int>(t) / n0;
          for (Size v = 0; v < trace / 2; ++v)
            flux_register[layout->index(2 * a + side, static_cast<int>(v), u, w)] = fc[v];
        }
    }
  // The face terms of every interior element: axis by axis, lower face then upper face.
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int i = 0; i < cells[0]; ++i) {
        gather(i, j, k);
        const std::array<int, 3> idx{i, j, k};
        for (int a = 0; a < dim; ++a) {
          const Size t = across_index(cells, a, i, j, k);
          const double dt_dx = dt / b.dx[static_cast<Size>(a)];
          dg::add_face_term(ops, dim, a, 0, face(a, idx[static_cast<Size>(a)], t), dt_dx,
                            s.u.data());
          dg::add_face_term(ops, dim, a, 1, face(a, idx[static_cast<Size>(a)] + 1, t), dt_dx,
                            s.u.data());
        }
        scatter(i, j, k);
      }
}

void DgSolver::submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) {
  tessera::AmrMesh& mesh = driver.mesh();
  const std::int32_t b = ctx.block.index;
  std::vector<tessera::Access> acc;
  acc.push_back(tessera::readwrite(mesh.interior(b, 0)));
  for (int a = 0; a < options_.dim; ++a) acc.push_back(tessera::read(mesh.ghosts(b, 0, a)));
  acc.push_back(tessera::read(ctx.step_handle));
  if (ctx.flux != nullptr) acc.push_back(tessera::write(ctx.flux_handle));
  BlockRecord* record = &records_[static_cast<Size>(b)];
  // A block next to a level jump (it has a flux register) is skeleton work too: the
  // coarse side's flux correction waits for it.
  tessera::TaskAttributes attributes(ctx.flux != nullptr ? session_.exec().skeleton_priority()
                                                         : ctx.priority);
  // What simulated runs with modelled compute charge a step by: its elements, and whether
  // it fills a flux register (docs/scaling-sim.md).
  attributes.work = static_cast<std::int64_t>(mesh.shape().interior_cells());
  attributes.work_variant = ctx.flux != nullptr ? 1 : 0;
  session_.runtime().submit(
      "dg_step", std::span<const tessera::Access>(acc),
      [this, block = ctx.block, record, step = ctx.step, flux = ctx.flux,
       layout = ctx.flux_layout] {
        // A cancelled cycle (zero step) keeps the block and its fault record.
        if (*step != 0) advance_block(block, *step, *record, flux, layout);
      },
      attributes);
}

void DgSolver::describe_fault(tessera::AmrDriver& driver) {
  tessera::AmrMesh& mesh = driver.mesh();
  for (tessera::LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    const auto i = static_cast<Size>(b);
    const bool in_stage = records_[i].fault;
    if (!in_stage && scan_faults_[i][0] < 0) continue;
    const auto cell = in_stage ? records_[i].cell : scan_faults_[i];
    const tessera::BlockPlace& p = mesh.place(b);
    const auto box = mesh.forest().unit_box(p);
    fmt::print(stderr,
               "euler: error: non-positive density or pressure at cycle {} (t = {:.9g}) in "
               "{}: block at level {} with lower corner ({:.6g}, {:.6g}, {:.6g}), element ({}, "
               "{}, {}) of the block (rank {})\n",
               driver.cycle(), driver.time(),
               in_stage ? "the DG predictor or a face trace" : "the updated state", p.level,
               geo_.lo[0] + box[0][0] * (geo_.hi[0] - geo_.lo[0]),
               geo_.lo[1] + box[1][0] * (geo_.hi[1] - geo_.lo[1]),
               geo_.lo[2] + box[2][0] * (geo_.hi[2] - geo_.lo[2]), cell[0], cell[1], cell[2],
               session_.rank());
    break;
  }
}

dg::State DgSolver::integrals(tessera::AmrDriver& driver) {
  tessera::AmrMesh& mesh = driver.mesh();
  const Size nodes = static_cast<Size>(element_nodes(options_));
  const int n = options_.order + 1;
  std::vector<double> weight(nodes);
  for (Size node = 0; node < nodes; ++node) {
    weight[node] = 1;
    for (int a = 0, r = static_cast<int>(node); a < options_.dim; ++a, r /= n)
      weight[node] *= ops_->basis.weights()[static_cast<Size>(r % n)];
  }
  std::array<tessera::ExactSum, dg::kNodeVars> sums;
  for (tessera::LocalBlockIndex i = 0; i < mesh.local_block_count(); ++i) {
    const tessera::SolverBlock b = driver.block(i);
    const auto sv = static_cast<Size>(b.shape->layout().stride_var());
    double volume = 1;
    for (int a = 0; a < options_.dim; ++a) volume *= b.dx[static_cast<Size>(a)];
    tessera::for_each_cell(b, [&](const std::array<std::int64_t, 3>&, Size c) {
      for (Size v = 0; v < dg::kNodeVars; ++v)
        for (Size node = 0; node < nodes; ++node)
          sums[v].add(volume * weight[node] * b.data[c + (v * nodes + node) * sv]);
    });
  }
  dg::State total{};
  for (Size v = 0; v < dg::kNodeVars; ++v) {
    const tessera::Handle h = session_.runtime().create_handle("euler.dg_total");
    session_.comm().iallreduce_sum(h, &sums[v]);
    session_.runtime().wait_for(h);
    total[v] = sums[v].value();
  }
  return total;
}

void DgSolver::started(tessera::AmrDriver& driver, bool restarted) {
  if (!restarted) start_ = integrals(driver);
}

nlohmann::json DgSolver::checkpoint_state() {
  return {{"dg_totals_start", start_}};
}

void DgSolver::restore_state(const nlohmann::json& state) {
  state.at("dg_totals_start").get_to(start_);
}

void DgSolver::finished(tessera::AmrDriver& driver) {
  tessera::AmrMesh& mesh = driver.mesh();
  end_ = integrals(driver);
  const double time = driver.time();
  const dg::ElementError error(ops_->basis, options_.dim);
  tessera::ExactSum l1, l2, flops;
  flops.add(static_cast<double>(retired_flops_));
  const Size nodes = static_cast<Size>(element_nodes(options_));
  std::vector<double> rho(nodes);
  for (tessera::LocalBlockIndex i = 0; i < mesh.local_block_count(); ++i) {
    flops.add(static_cast<double>(records_[static_cast<Size>(i)].flops));
    const tessera::SolverBlock b = driver.block(i);
    const auto sv = static_cast<Size>(b.shape->layout().stride_var());
    tessera::for_each_cell(b, [&](const std::array<std::int64_t, 3>& g, Size c) {
      for (Size v = 0; v < nodes; ++v) rho[v] = b.data[c + v * sv];
      std::array<double, 3> corner{};
      for (int a = 0; a < options_.dim; ++a)
        corner[static_cast<Size>(a)] =
            geo_.lo[a] + static_cast<double>(g[static_cast<Size>(a)]) * b.dx[static_cast<Size>(a)];
      const auto sums =
          error.integrate(rho.data(), corner, b.dx, [&](const std::array<double, 3>& x) {
            return dg::exact_state(problem_, options_.dim, x, time)[0];
          });
      l1.add(sums[0]);
      l2.add(sums[1]);
    });
  }
  std::array<tessera::ExactSum*, 3> sums{&l1, &l2, &flops};
  for (tessera::ExactSum* sum : sums) {
    const tessera::Handle h = session_.runtime().create_handle("euler.dg_sum");
    session_.comm().iallreduce_sum(h, sum);
    session_.runtime().wait_for(h);
  }
  double domain = 1;
  for (int a = 0; a < options_.dim; ++a) domain *= geo_.hi[a] - geo_.lo[a];
  l1_rho_ = l1.value() / domain;
  l2_rho_ = std::sqrt(l2.value() / domain);
  global_flops_ = static_cast<std::int64_t>(flops.value());
  flops_per_s_ = driver.loop_seconds() > 0 ? flops.value() / driver.loop_seconds() : 0;
  session_.say(
      "Summary: euler dg p={} {} {}-D elements {} blocks {} ranks {} threads {} cycles {} t "
      "{:.6g} dof-updates/s {:.4g} GFLOP/s {:.3g} l1_rho {:.6e} l2_rho {:.6e} checksum {}",
      options_.order, options_.problem_name, options_.dim,
      static_cast<std::int64_t>(driver.global_cells()), mesh.forest().global_count(),
      session_.size(), session_.runtime().threads(), driver.cycle(), time,
      driver.zone_cycles_per_second() * static_cast<double>(nodes), flops_per_s_ * 1e-9, l1_rho_,
      l2_rho_, tessera::hex_bits(driver.end_totals().checksum));
}

nlohmann::json DgSolver::report(const tessera::AmrDriver& driver) const {
  const double nodes = element_nodes(options_);
  nlohmann::json j;
  j["problem"] = options_.problem_name;
  j["dim"] = options_.dim;
  j["scheme"] = "dg";
  j["order"] = options_.order;
  j["riemann"] = options_.riemann_name;
  j["dofs"] = driver.global_cells() * nodes;
  j["dof_updates_per_s"] = driver.zone_cycles_per_second() * nodes;
  j["flops"] = global_flops_;
  j["flops_per_s"] = flops_per_s_;
  j["l1_rho"] = l1_rho_;
  // The conserved integrals (quadrature of the element polynomials), and the largest change
  // of one relative to the larger of it and the mass.
  const auto totals_json = [](const dg::State& u) {
    return nlohmann::json{{"mass", u[0]}, {"momentum", {u[1], u[2], u[3]}}, {"energy", u[4]}};
  };
  j["totals_start"] = totals_json(start_);
  j["totals_end"] = totals_json(end_);
  double drift = 0;
  for (Size v = 0; v < dg::kNodeVars; ++v)
    drift = std::max(
        drift, std::abs(end_[v] - start_[v]) / std::max(std::abs(start_[v]), std::abs(start_[0])));
  j["dg_conserved_drift"] = drift;
  j["l2_rho"] = l2_rho_;
  return j;
}

}  // namespace euler
