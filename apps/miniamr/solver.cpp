#include "solver.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "tessera/amr/marking.hpp"

namespace miniamr {

namespace {

// Initial value of variable v in the level-0 cell g of the global grid: uniform in [0, 1),
// a function of the position only (miniAMR uses rand(), which depends on ranks).
double initial_value(const std::array<std::int64_t, 3>& g, int v) {
  const auto mix = [](std::uint64_t x) {  // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  std::uint64_t h = mix(static_cast<std::uint64_t>(v));
  for (std::int64_t x : g) h = mix(h ^ static_cast<std::uint64_t>(x));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// miniAMR's stencils in the reference's order of additions: variables first .. first+vars-1
// become 7: [u(i-1) + u(j-1) + u(k-1) + u + u(k+1) + u(j+1) + u(i+1)] / 7, or 27: the sums
// over the planes i-1, i and i+1 (each j-major, k-minor) / 27, of the old values.
void apply_stencil(const tessera::BlockShape& s, int points, double* block, int first, int vars) {
  const tessera::BlockLayout l = s.layout();
  const tessera::Int3 n = l.cells();
  const std::ptrdiff_t sy = l.stride_y(), sz = l.stride_z();
  const auto plane = [sy, sz](const double* c) {
    return c[-sy - sz] + c[-sy] + c[-sy + sz] + c[-sz] + c[0] + c[sz] + c[sy - sz] + c[sy] +
           c[sy + sz];
  };
  const auto seven = [sy, sz](const double* c) {
    return (c[-1] + c[-sy] + c[-sz] + c[0] + c[sz] + c[sy] + c[1]) / 7.0;
  };
  const auto twenty_seven = [&plane](const double* c) {
    return (plane(c - 1) + plane(c) + plane(c + 1)) / 27.0;
  };
  thread_local std::vector<double> work;
  work.resize(s.interior_cells());
  // Into `work` first: every new value reads old ones. Rows are short: no memmove call.
  const auto sweep = [&](int v, auto point) {
    double* out = work.data();
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (const double *c = block + l.index(v, 0, j, k), *end = c + n.x; c < end; ++c)
          *out++ = point(c);
    const double* in = work.data();
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (double *row = block + l.index(v, 0, j, k), *end = row + n.x; row < end;)
          *row++ = *in++;
  };
  for (int v = first; v < first + vars; ++v)
    points == 27 ? sweep(v, twenty_seven) : sweep(v, seven);
}

}  // namespace

Solver::Solver(tessera::Session& session, const Options& options)
    : session_(session),
      options_(options),
      h_{.objects = options.objects},
      start_seconds_(MPI_Wtime()) {}

std::vector<tessera::FieldSpec> Solver::fields() const {
  // Variable group g is field g: its own exchange, stencil and checkpoint part.
  std::vector<tessera::FieldSpec> f;
  const int per_group = options_.variables_per_group();
  for (int g = 0; g < options_.groups(); ++g) {
    f.push_back({fmt::format("g{}", g), std::min(per_group, options_.num_vars - g * per_group),
                 tessera::Amount::per_cell});
    for (int c = 0; c < f.back().components; ++c)
      f.back().component_names.push_back(fmt::format("var{}", g * per_group + c));
  }
  return f;
}

std::vector<tessera::StageSpec> Solver::stages() const {
  std::vector<tessera::StageSpec> s;
  for (int stage = 0; stage < options_.stages_per_ts; ++stage)
    for (int g = 0; g < options_.groups(); ++g) s.push_back({g, g, 1});
  return s;
}

void Solver::submit_initial_state(tessera::AmrDriver& driver, const tessera::SolverBlock& b) {
  std::vector<tessera::Access> acc;
  for (int g = 0; g < options_.groups(); ++g)
    acc.push_back(write(driver.mesh().interior(b.index, g)));
  session_.runtime().submit(
      "init_block", std::span<const tessera::Access>(acc), [b, vars = options_.num_vars] {
        const std::ptrdiff_t stride = b.shape->layout().stride_var();
        tessera::for_each_cell(b, [&](const std::array<std::int64_t, 3>& g, std::size_t c) {
          for (int v = 0; v < vars; ++v)
            b.data[c + static_cast<std::size_t>(v * stride)] = initial_value(g, v);
        });
      });
}

void Solver::submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) {
  tessera::AmrMesh& mesh = driver.mesh();
  const int g = ctx.stage % options_.groups(), points = options_.stencil;
  const tessera::LocalBlockIndex b = ctx.block.index;
  // The values it updates: what simulated runs with modelled compute charge it by.
  tessera::TaskAttributes attributes(ctx.priority);
  attributes.work =
      static_cast<std::int64_t>(mesh.shape().interior_cells()) * mesh.shape().group_vars(g);
  session_.runtime().submit(
      "stencil",
      {read(mesh.ghosts(b, g, 0)), read(mesh.ghosts(b, g, 1)), read(mesh.ghosts(b, g, 2)),
       readwrite(mesh.interior(b, g))},
      [&s = mesh.shape(), points, block = ctx.block.data, g] {
        apply_stencil(s, points, block, s.group_first(g), s.group_vars(g));
      },
      attributes);
}

void Solver::after_stage(tessera::AmrDriver& driver, int stage) {
  if (stage == 0) {
    const int ts = driver.cycle() + 1;
    if ((options_.report_perf & 8) != 0)
      session_.progress("Timestep {} time {:.6f} delta 1.000000", ts, ts - 1.0);
    h_.blocks_per_step.push_back(driver.mesh().forest().global_count());
  }
  if (stage + 1 == options_.stages_per_ts * options_.groups() && options_.moves_objects())
    tessera::move_objects(h_.objects, 1.0);
}

void Solver::check_sums(tessera::AmrDriver& driver, int ts,
                        std::span<const tessera::ExactSum> sums) {
  // Round 0 (the initial state) is the reference each later round is compared with.
  if (ts > 0) ++h_.checksums;
  const double tol = std::pow(10.0, -options_.error_tol);
  for (std::size_t v = 0; ts > 0 && v < sums.size(); ++v) {
    const double sum = sums[v].value(), old = h_.reference_sums[v];
    const double diff = std::fabs(sum - old), rel = diff / old;
    if (options_.report_diffusion)
      session_.say("{} var {} sum {} old {} diff {} {} tol {}", ts, v, sum, old, diff, rel, tol);
    if (!(rel <= tol) && !validation_failed_) {
      session_.say(
          "Time step {} sum {} (old {}) variable {} difference too large\nminiamr: "
          "checksum validation failed (relative difference {} > --error_tol 10^-{}); "
          "stopping",
          ts, sum, old, v, rel, options_.error_tol);
      validation_failed_ = true;
      driver.fail();
    }
  }
  h_.reference_sums.assign(sums.size(), 0);
  for (std::size_t v = 0; v < sums.size(); ++v) h_.reference_sums[v] = sums[v].value();
}

std::optional<std::vector<std::int8_t>> Solver::marks(tessera::AmrDriver& driver) {
  const tessera::Forest& forest = driver.mesh().forest();
  std::vector<std::uint8_t> hit;
  for (std::int32_t b = 0; b < forest.local_count(); ++b) {
    const tessera::BlockPlace& p = forest.local(b);
    hit.push_back(options_.uniform_refine != 0 ? p.level < options_.num_refine
                                               : objects_intersect(h_.objects, forest.unit_box(p)));
  }
  return tessera::refinement_marks(forest, hit, options_.num_refine);
}

void Solver::adapted(tessera::AmrDriver& driver) {
  const tessera::Forest& forest = driver.mesh().forest();
  RefinementRecord r{driver.cycle(), forest.global_level_counts(options_.num_refine), 0};
  for (std::int64_t n : r.levels) r.total += n;
  if ((options_.report_perf & 8) != 0) {
    for (std::size_t l = 0; l < r.levels.size(); ++l)
      session_.say("Number of blocks at level {} at timestep {} is {}", l, r.timestep, r.levels[l]);
    session_.say("Total number of blocks at timestep {} is {}", r.timestep, r.total);
  }
  h_.refinements.push_back(std::move(r));
  const int ranks = options_.rank_grid[0] * options_.rank_grid[1] * options_.rank_grid[2];
  const std::int64_t capacity = static_cast<std::int64_t>(options_.max_blocks) * ranks;
  if (forest.global_count() > capacity) {
    session_.say(
        "ERROR: Need more blocks: the mesh has {} blocks, more than --max_blocks {} x "
        "{} miniAMR ranks = {}",
        forest.global_count(), options_.max_blocks, ranks, capacity);
    driver.fail();
  }
}

void Solver::finished(tessera::AmrDriver& driver) {
  // The final checksum weights every value by its cell and level: moving a value changes it.
  tessera::ExactSum total;
  for (const tessera::ExactSum& s : driver.state_sums(tessera::SumKind::weighted)) {
    total.add(s);
    var_sums_hex_.push_back(tessera::hex_bits(s.value()));
  }
  checksum_ = total.value();
  total_seconds_ = MPI_Wtime() - start_seconds_;
  MPI_Allreduce(MPI_IN_PLACE, &total_seconds_, 1, MPI_DOUBLE, MPI_MAX, session_.comm().mpi());
  if ((options_.report_perf & 4) != 0) print_report(driver);
}

nlohmann::json Solver::report(const tessera::AmrDriver& driver) const {
  std::int64_t total_blocks = 0;
  for (std::int64_t n : h_.blocks_per_step) total_blocks += n * options_.stages_per_ts;
  const double flops = static_cast<double>(total_blocks) * driver.mesh().shape().interior_cells() *
                       options_.num_vars * options_.stencil;  // miniAMR: 6 or 26 adds, 1 divide
  return {{"checksum", tessera::hex_bits(checksum_)},
          {"checksum_value", checksum_},
          {"var_checksums", var_sums_hex_},
          {"blocks_per_step", h_.blocks_per_step},
          {"refinements", h_.refinements},
          {"total_blocks", total_blocks},
          {"flops", flops},
          {"gflops", driver.loop_seconds() > 0 ? flops / driver.loop_seconds() / 1e9 : 0.0},
          {"splits", driver.blocks_split()},
          {"merges", driver.families_merged()},
          {"moved", driver.blocks_moved()},
          {"refine_steps", h_.refinements.size()},
          {"balance_steps", driver.repartitions()},
          {"checksums", h_.checksums},
          {"timesteps_done", driver.cycle()},
          {"validation", validation_failed_ ? "failed" : "passed"}};
}

// The end-of-run report on stdout, in the spirit of miniAMR's (--report_perf bit 4).
void Solver::print_report(const tessera::AmrDriver& d) const {
  const Options& o = options_;
  const nlohmann::json t = report(d);
  const auto roots = o.root_blocks();
  session_.say(
      "================ Start report ===================\n\n"
      "          tessera miniamr (miniAMR-compatible, task-based)\n");
  const tessera::AmrDriverOptions& r = o.run;
  session_.say(
      "Run on {} ranks x {} threads, execution model {}\n"
      "Initial mesh of {} x {} x {} level-0 blocks (npx*init_x x npy*init_y x npz*init_z)\n"
      "Block size {} x {} x {}, {} variables, {} per communication group\n"
      "Maximum blocks {} per miniAMR rank; {} levels of refinement; block_change {}\n"
      "Load balancing: lb_opt {}, threshold {}% ; messages: {}{}{}",
      session_.size(), session_.runtime().threads(), tessera::to_string(session_.options().exec),
      roots[0], roots[1], roots[2], o.block_cells[0], o.block_cells[1], o.block_cells[2],
      o.num_vars, o.variables_per_group(), o.max_blocks, o.num_refine, o.refine_iterations_later(),
      o.lb_opt, o.inbalance, r.send_faces ? "one per face" : "one per neighbour rank and axis",
      r.send_faces && r.max_comm_tasks > 0 ? fmt::format(" (at most {})", r.max_comm_tasks) : "",
      r.separate_buffers ? ", separate buffers per axis" : "");
  for (std::size_t i = 0; i < o.objects.size(); ++i) {
    const auto& obj = o.objects[i];  // as given
    session_.say("Object {} is the {}\n  bounce {} centre {} move {} size {} growth {}", i,
                 tessera::object_type_name(obj.type), obj.bounce, fmt::join(obj.center, " "),
                 fmt::join(obj.move, " "), fmt::join(obj.size, " "), fmt::join(obj.growth, " "));
  }
  session_.say(
      "Number of timesteps {} (done {}), stages per timestep {}, checksum every {} stages, "
      "refinement every {} timesteps\n{}-point stencil, error tolerance 10^-{}\n\n"
      "Total time for test (sec): {:.4f}  (time stepping and refinement: {:.4f})\n",
      r.max_cycles, d.cycle(), o.stages_per_ts, o.checksum_freq, o.refine_freq, o.stencil,
      o.error_tol, total_seconds_, d.loop_seconds());
  session_.say("Phases (main-thread wall time on rank 0, sec; overlapping under dataflow):");
  for (const auto& [name, seconds] : session_.exec().phase_seconds())
    session_.say("     {:<16} {:10.4f}", name, seconds);
  const double gflops = t["gflops"].get<double>();
  session_.say(
      "\nComputational Performance\n     Total floating point ops  {:.6e}\n"
      "     total GFLOPS              {:.4f}  (ops / time stepping wall time / 1e9)\n"
      "     Average GFLOPS per rank   {:.4f}\n",
      t["flops"].get<double>(), gflops, gflops / session_.size());
  // Blocks after each refinement step (the initial mesh without any).
  std::vector<std::int64_t> totals;
  for (const auto& step : h_.refinements) totals.push_back(step.total);
  if (totals.empty()) totals.push_back(h_.blocks_per_step.empty() ? 0 : h_.blocks_per_step[0]);
  const auto [min_b, max_b] = std::ranges::minmax(totals);
  const double stages = static_cast<double>(std::max(1, d.cycle())) * o.stages_per_ts;
  const auto total_blocks = t["total_blocks"].get<std::int64_t>();
  session_.say(
      "Mesh Refinement\n     Number of refinement steps     {}\n"
      "     Number of load balance steps   {}\n     Total blocks                   {}\n"
      "     Blocks/timestep ave, min, max  {:.2f} {} {}\n     Max blocks on a rank           {}\n"
      "     Total blocks split             {}\n     Total blocks reformed          {}\n"
      "     Total blocks moved             {}\n",
      h_.refinements.size(), d.repartitions(), total_blocks,
      static_cast<double>(total_blocks) / stages, min_b, max_b, d.max_blocks_per_rank(),
      d.blocks_split(), d.families_merged(), d.blocks_moved());
  session_.say("Checksums: {} ({}), final checksum {}\n", h_.checksums,
               validation_failed_ ? "validation FAILED" : "all validated",
               tessera::hex_bits(checksum_));
  session_.say("================== End report ===================");
  session_.say("Summary: ranks {} threads {} ts {} time {:.4f} blocks/ts {:.2f} max_blocks {}",
               session_.size(), session_.runtime().threads(), d.cycle(), total_seconds_,
               static_cast<double>(total_blocks) / stages, d.max_blocks_per_rank());
}

}  // namespace miniamr
