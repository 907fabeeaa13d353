#include "solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stencil.hpp"
#include "tessera/amr/marking.hpp"

namespace tessera {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RefineObject, type, bounce, center, move, size, growth)
}  // namespace tessera

namespace miniamr {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RefinementRecord, timestep, levels, total)

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Initial value of variable v in the level-0 cell g of the global grid: uniform in [0, 1),
// a function of the position only (miniAMR uses rand(), which depends on ranks).
double initial_value(const std::array<std::int64_t, 3>& g, int v) {
  const std::uint64_t h =
      mix(mix(mix(mix(static_cast<std::uint64_t>(v)) ^ static_cast<std::uint64_t>(g[0])) ^
              static_cast<std::uint64_t>(g[1])) ^
          static_cast<std::uint64_t>(g[2]));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

}  // namespace

Solver::Solver(tessera::Session& session, const Options& options)
    : session_(session),
      options_(options),
      groups_(options.groups()),
      objects_(options.objects),
      start_seconds_(MPI_Wtime()) {}

std::vector<tessera::FieldSpec> Solver::fields() const {
  // Variable group g is field g: its own exchange, stencil and checkpoint part.
  std::vector<tessera::FieldSpec> f;
  const int per_group = options_.variables_per_group();
  for (int g = 0; g < groups_; ++g) {
    tessera::FieldSpec s{fmt::format("g{}", g),
                         std::min(per_group, options_.num_vars - g * per_group),
                         tessera::Amount::per_cell};
    for (int c = 0; c < s.components; ++c)
      s.component_names.push_back(fmt::format("var{}", g * per_group + c));
    f.push_back(s);
  }
  return f;
}

std::vector<tessera::StageSpec> Solver::stages() const {
  std::vector<tessera::StageSpec> s;
  for (int stage = 0; stage < options_.stages_per_ts; ++stage)
    for (int g = 0; g < groups_; ++g) s.push_back({g, g, 1});
  return s;
}

void Solver::submit_initial_state(tessera::AmrDriver& driver, const tessera::SolverBlock& b) {
  std::vector<tessera::Access> acc;
  for (int g = 0; g < groups_; ++g) acc.push_back(write(driver.mesh().interior(b.index, g)));
  const int vars = options_.num_vars;
  session_.runtime().submit("init_block", std::span<const tessera::Access>(acc), [b, vars] {
    const std::ptrdiff_t stride = b.shape->layout().stride_var();
    tessera::for_each_cell(b, [&](const std::array<std::int64_t, 3>& g, std::size_t c) {
      for (int v = 0; v < vars; ++v)
        b.data[c + static_cast<std::size_t>(v * stride)] = initial_value(g, v);
    });
  });
}

void Solver::submit_stage(tessera::AmrDriver& driver, const tessera::StageContext& ctx) {
  tessera::AmrMesh& mesh = driver.mesh();
  const int g = ctx.stage % groups_, points = options_.stencil;
  const tessera::BlockShape& shape = mesh.shape();
  const int first = shape.group_first(g), vars = shape.group_vars(g);
  const tessera::LocalBlockIndex b = ctx.block.index;
  session_.runtime().submit(
      "stencil",
      {read(mesh.ghosts(b, g, 0)), read(mesh.ghosts(b, g, 1)), read(mesh.ghosts(b, g, 2)),
       readwrite(mesh.interior(b, g))},
      [&shape, points, block = ctx.block.data, first, vars] {
        apply_stencil(shape, points, block, first, vars);
      },
      ctx.priority);
}

void Solver::after_stage(tessera::AmrDriver& driver, int stage) {
  if (stage == 0) {
    const int ts = driver.cycle() + 1;
    if ((options_.report_perf & 8) != 0)
      session_.progress("Timestep {} time {:.6f} delta {:.6f}", ts, static_cast<double>(ts - 1),
                        1.0);
    blocks_per_step_.push_back(driver.mesh().forest().global_count());
  }
  if (stage + 1 == options_.stages_per_ts * groups_ && options_.moves_objects())
    tessera::move_objects(objects_, 1.0);
}

void Solver::check_sums(tessera::AmrDriver& driver, int ts,
                        std::span<const tessera::ExactSum> sums) {
  // Round 0 (the initial state) is the reference each later round is compared with.
  if (ts > 0) ++checksums_;
  const double tol = std::pow(10.0, -options_.error_tol);
  for (int v = 0; v < options_.num_vars && ts > 0; ++v) {
    const double sum = sums[static_cast<std::size_t>(v)].value();
    const double old = reference_sums_[static_cast<std::size_t>(v)];
    const double diff = std::fabs(sum - old), rel = diff / old;
    if (options_.report_diffusion)
      session_.say("{} var {} sum {} old {} diff {} {} tol {}", ts, v, sum, old, diff, rel, tol);
    if (!(rel <= tol) && !validation_failed_) {
      session_.say("Time step {} sum {} (old {}) variable {} difference too large", ts, sum, old,
                   v);
      session_.say(
          "miniamr: checksum validation failed (relative difference {} > --error_tol "
          "10^-{}); stopping",
          rel, options_.error_tol);
      validation_failed_ = true;
      driver.fail();
    }
  }
  reference_sums_.clear();
  for (const tessera::ExactSum& s : sums) reference_sums_.push_back(s.value());
}

std::optional<std::vector<std::int8_t>> Solver::marks(tessera::AmrDriver& driver) {
  const tessera::Forest& forest = driver.mesh().forest();
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(forest.local_count()));
  for (std::int32_t b = 0; b < forest.local_count(); ++b) {
    const tessera::BlockPlace& p = forest.local(b);
    hit[static_cast<std::size_t>(b)] =
        options_.uniform_refine != 0 ? p.level < options_.num_refine
                                     : tessera::objects_intersect(objects_, forest.unit_box(p));
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
  refinements_.push_back(std::move(r));
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

nlohmann::json Solver::checkpoint_state() {
  return {{"reference_sums", reference_sums_},
          {"objects", objects_},
          {"blocks_per_step", blocks_per_step_},
          {"refinements", refinements_},
          {"checksums", checksums_}};
}

void Solver::restore_state(const nlohmann::json& st) {
  st.at("reference_sums").get_to(reference_sums_);
  st.at("objects").get_to(objects_);
  st.at("blocks_per_step").get_to(blocks_per_step_);
  st.at("refinements").get_to(refinements_);
  st.at("checksums").get_to(checksums_);
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
  for (std::int64_t n : blocks_per_step_) total_blocks += n * options_.stages_per_ts;
  const double flops = static_cast<double>(total_blocks) * driver.mesh().shape().interior_cells() *
                       options_.num_vars * stencil_flops(options_.stencil);
  return {{"checksum", tessera::hex_bits(checksum_)},
          {"checksum_value", checksum_},
          {"var_checksums", var_sums_hex_},
          {"blocks_per_step", blocks_per_step_},
          {"refinements", refinements_},
          {"total_blocks", total_blocks},
          {"flops", flops},
          {"gflops", driver.loop_seconds() > 0 ? flops / driver.loop_seconds() / 1e9 : 0.0},
          {"splits", driver.blocks_split()},
          {"merges", driver.families_merged()},
          {"moved", driver.blocks_moved()},
          {"refine_steps", refinements_.size()},
          {"balance_steps", driver.repartitions()},
          {"checksums", checksums_},
          {"timesteps_done", driver.cycle()},
          {"validation", validation_failed_ ? "failed" : "passed"}};
}

}  // namespace miniamr
