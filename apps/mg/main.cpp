// mg: the NAS Parallel Benchmarks' MG kernel on tessera's multigrid level hierarchy.
//
// NPB MG solves A u = v on a periodic nx^3 grid with V-cycles (mg3P): the residual is
// restricted level by level down to 2^3 cells (rprj3), smoothed there (psinv), then
// interpolated back up (interp), with a residual (resid) and a smoothing step per level.
// v is +1 at the ten largest and -1 at the ten smallest of nx^3 numbers from NPB's
// generator (zran3). Every level is a periodic block mesh with a full (27-point) halo;
// coarse levels with fewer blocks than ranks live on fewer ranks; restriction and
// interpolation are tasks on block pairs. Under --exec dataflow one iteration (V-cycle and
// residual) is recorded once as an iteration graph and replayed nit times. The residual
// norm is an exact sum: bitwise the same for every model, rank and thread count.

#include <fmt/format.h>
#include <sys/resource.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mg_kernels.hpp"
#include "npb_problem.hpp"
#include "npb_random.hpp"
#include "square_sum.hpp"
#include "tessera/balance_options.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/io/block_field_checkpoint.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/mesh/grid_view.hpp"
#include "tessera/mesh/level_hierarchy.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/session.hpp"

namespace tessera::mg {
namespace {

struct Options {
  std::string class_name = "S";
  int nx = 0;                    // unset: the class's size
  int nit = 0;                   // unset: the class's iterations
  std::vector<int> block_cells;  // unset: min(256, nx) x min(64, nx / 2)^2
  int levels = 0;                // unset: down to 2^3 cells, as NPB
  bool replay = true;
  bool staged_halo = false;
  CheckpointOptions checkpoint;
  BalanceOptions balance;  // --balance: only count, the blocks cannot move
};

/// The problem-defining options as a restart stores and checks them (resolved values).
/// --nit is one of them: with --nx it selects the NPB class, whose smoother differs.
nlohmann::json problem_options(const std::string& class_name, int nx, int nit, int levels,
                               const std::vector<int>& block_cells) {
  return {{"--class", class_name},
          {"--nx", nx},
          {"--nit", nit},
          {"--levels", levels},
          {"--block-cells", block_cells}};
}

/// Declares mg's options. The problem options are checked against a checkpoint as
/// resolved values (problem_options), not as given, so all are declared as run options.
void declare_options(OptionRegistry& registry, Options& o) {
  registry.add("--class", o.class_name, "NPB problem class S|W|A|B|C");
  registry.add("--nx", o.nx,
               "cells per axis, a power of two >= 4 (default: the class's; with another size "
               "or --nit the class is U, unverified)");
  registry.add("--iterations,--nit", o.nit, "V-cycle iterations; 0 = the class's");
  registry
      .add("--block-cells", o.block_cells,
           "largest block (data tile): one edge B or NX NY NZ, powers of two dividing "
           "--nx; every level uses min(this, its cells) per axis (default min(256, nx) "
           "min(64, nx / 2) min(64, nx / 2))")
      ->expected(1, 3);
  registry.add("--levels", o.levels,
               "multigrid levels (default log2(nx): down to 2^3 cells, as NPB)");
  registry.add_flag(
      "!--no-replay", o.replay,
      "under --exec dataflow, submit every iteration's tasks instead of replaying one "
      "recorded iteration graph");
  registry.add_flag(
      "--staged-halo", o.staged_halo,
      "exchange ghosts in three axis stages as NPB's comm3 (6 messages per block and 3 "
      "latencies instead of 26 messages and 1; the same results)");
  declare_checkpoint_options(registry, o.checkpoint, "iterations");
  declare_balance_options(registry, o.balance, false);
}

bool is_power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}

int log2_of(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

class Solver {
 public:
  Solver(Session& session, const HierarchySpec& spec, const ProblemClass& problem)
      : session_(session),
        problem_(problem),
        a_(operator_coefficients()),
        c_(smoother_coefficients(problem.name)),
        hierarchy_(spec, session.comm(), session.exec()),
        u_(hierarchy_, session.runtime(), "u"),
        r_(hierarchy_, session.runtime(), "r"),
        v_(hierarchy_.mesh(0), session.runtime(), "v", 1) {
    // The finest level's r is next read after every block's residual: it stays in cache
    // only if this rank's u, v and r fit in the last-level cache; otherwise streaming
    // stores save reading every output line before writing it.
    constexpr double kLastLevelCacheBytes = 32 << 20;  // AMD EPYC's L3 per CCD
    stream_finest_ =
        3.0 * static_cast<double>(v_.layout().size()) * sizeof(double) * v_.block_count() >
        kLastLevelCacheBytes;
    norm_handle_ = session.runtime().create_reduction_handle(
        "rnm2", &norm_sum_, [](ExactSum& total, const ExactSum& part) { total.add(part); });
  }

  const LevelHierarchy& hierarchy() const { return hierarchy_; }
  /// The state an iteration hands to the next (for checkpoints): the finest level's u.
  /// The next iteration recomputes everything else from it (submit_finest_residual first).
  BlockField& finest_u() { return u_[0]; }

  /// zran3: v = +1 at the ten largest, -1 at the ten smallest generated values.
  void set_right_hand_side() {
    const UniformMesh& mesh = hierarchy_.mesh(0);
    std::vector<Extremes> per_block(mesh.local_block_count());
    Runtime& runtime = session_.runtime();
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      runtime.submit("zran3", {write(v_.interior(b))}, [this, &mesh, &per_block, b] {
        const Int3 o = mesh.cell_origin(mesh.local_block(b));
        const Int3 n = mesh.block_cells();
        per_block[b] = generated_extremes(mesh.cells().x, {o, {o.x + n.x, o.y + n.y, o.z + n.z}});
      });
    }
    runtime.wait_all();
    Extremes mine;
    for (const Extremes& e : per_block) mine.merge(e);
    std::vector<Extremes> all(session_.size());
    MPI_Allgather(&mine, sizeof(Extremes), MPI_BYTE, all.data(), sizeof(Extremes), MPI_BYTE,
                  session_.comm().mpi());
    Extremes global;
    for (const Extremes& e : all) global.merge(e);
    const std::int64_t nx = mesh.cells().x;
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      std::fill(v_.data(b), v_.data(b) + v_.layout().size(), 0.0);
    }
    const auto set = [&](const Candidate& c, double value) {
      if (c.index < 0) return;
      const Int3 g{static_cast<int>(c.index % nx), static_cast<int>((c.index / nx) % nx),
                   static_cast<int>(c.index / (nx * nx))};
      const Int3 n = mesh.block_cells();
      const auto b = mesh.local_index(mesh.block_id({g.x / n.x, g.y / n.y, g.z / n.z}));
      if (!b) return;
      block_view(v_.layout(), v_.data(*b))(g.x % n.x, g.y % n.y, g.z % n.z) = value;
    };
    for (const Candidate& c : global.smallest) set(c, -1.0);
    for (const Candidate& c : global.largest) set(c, +1.0);
  }

  /// u = 0 on the finest level, ghosts included (NPB's zero3 before the timed run).
  void zero_solution() {
    session_.runtime().wait_all();
    BlockField& u = u_[0];
    for (LocalBlockIndex b = 0; b < u.block_count(); ++b) {
      std::fill(u.data(b), u.data(b) + u.layout().size(), 0.0);
    }
  }

  /// Submits r = v - A u on the finest level and its halo exchange.
  void submit_finest_residual() {
    submit_residual(0, u_[0], v_, r_[0]);
    hierarchy_.halo(0).exchange(r_[0]);
  }

  /// Submits one NPB iteration: mg3P, then the finest residual.
  void submit_iteration() {
    const int top = hierarchy_.levels() - 1;
    for (int l = 0; l < top; ++l) {
      hierarchy_.transfer(l).restrict_field(r_[l], r_[l + 1],
                                            [](ConstGridView fine, GridView coarse, Int3 nc) {
                                              restrict_residual(fine, coarse, nc);
                                            });
      hierarchy_.halo(l + 1).exchange(r_[l + 1]);
    }
    submit_smooth(top, /*zero_first=*/true);
    for (int l = top - 1; l >= 0; --l) {
      // Levels below the finest start from u = 0, so their interpolation assigns.
      const bool add = l == 0;
      // The interpolation also updates u's ghost layer from the coarse ghosts (the same
      // formula on the same values as the neighbour's), so u needs no halo exchange here.
      hierarchy_.transfer(l).prolong_field(
          u_[l + 1], u_[l],
          [add](ConstGridView z, GridView u, Int3 nf) { interpolate(z, u, nf, add, true); },
          /*fine_ghosts=*/true,
          // Each block's residual right after its interpolation, while its u is in cache.
          [&, l](LocalBlockIndex b) {
            submit_residual_block(l, b, u_[l], l == 0 ? v_ : r_[l], r_[l]);
          });
      hierarchy_.halo(l).exchange(r_[l]);
      submit_smooth(l, /*zero_first=*/false);
    }
    submit_finest_residual();
  }

  /// Runs `count` iterations: replayed from one recorded graph under dataflow (unless
  /// --no-replay), else submitted one by one. Returns once they completed.
  void iterate(int count, bool replay) {
    if (count <= 0) return;
    Runtime& runtime = session_.runtime();
    if (replay && session_.exec().model() == ExecModel::dataflow) {
      if (graph_.empty()) {
        runtime.begin_recording();
        submit_iteration();
        graph_ = runtime.end_recording();
      }
      runtime.replay(graph_, replayed_, count);
      replayed_ += count;
      return;
    }
    for (int it = 0; it < count; ++it) submit_iteration();
    runtime.wait_all();
  }

  /// norm2u3's rnm2: sqrt(sum of r^2 / nx^3) over the finest level, summed exactly.
  double residual_norm() {
    Runtime& runtime = session_.runtime();
    const BlockField& r = r_[0];
    norm_sum_ = ExactSum{};
    const Int3 n = hierarchy_.mesh(0).block_cells();
    for (LocalBlockIndex b = 0; b < r.block_count(); ++b) {
      runtime.submit(
          "norm2u3", {read(r.interior(b)), reduce(norm_handle_)},
          [view = block_view(r.layout(), r.data(b)), n, h = norm_handle_](TaskContext& ctx) {
            // 64 KiB of buckets: on the task's stack, not in its reduction slot.
            SquareSum squares;
            for (int k = 0; k < n.z; ++k)
              for (int j = 0; j < n.y; ++j) squares.add_squares(view.row(j, k), n.x);
            squares.fold_into(ctx.reduction_slot<ExactSum>(h));
          });
    }
    session_.comm().iallreduce_sum(norm_handle_, &norm_sum_);
    runtime.wait_for(norm_handle_);
    return std::sqrt(norm_sum_.value() / static_cast<double>(product(hierarchy_.mesh(0).cells())));
  }

 private:
  Priority priority_of(const UniformMesh& mesh, LocalBlockIndex b) const {
    return mesh.local_block(b).is_skeleton(HaloShape::full) ? session_.exec().skeleton_priority()
                                                            : Priority::normal;
  }

  // psinv's attributes, with its work in cells (modelled compute, docs/scaling-sim.md).
  TaskAttributes smooth_attributes(const UniformMesh& mesh, LocalBlockIndex b, int level) const {
    TaskAttributes attributes(priority_of(mesh, b), {mesh.local_block(b).id, level});
    attributes.work = product(mesh.block_cells());
    return attributes;
  }

  void submit_residual(int level, const BlockField& u, const BlockField& v, BlockField& r) {
    session_.exec().begin_phase("resid");
    for (LocalBlockIndex b = 0; b < hierarchy_.mesh(level).local_block_count(); ++b) {
      submit_residual_block(level, b, u, v, r);
    }
    session_.exec().end_phase();
  }

  void submit_residual_block(int level, LocalBlockIndex b, const BlockField& u, const BlockField& v,
                             BlockField& r) {
    Runtime& runtime = session_.runtime();
    const UniformMesh& mesh = hierarchy_.mesh(level);
    const Int3 n = mesh.block_cells();
    const ConstGridView uv = block_view(u.layout(), u.data(b));
    const ConstGridView vv = block_view(v.layout(), v.data(b));
    const GridView rv = block_view(r.layout(), r.data(b));
    TaskAttributes attributes(priority_of(mesh, b), {mesh.local_block(b).id, level});
    attributes.work = product(n);  // cells (modelled compute, docs/scaling-sim.md)
    const bool stream = level == 0 && &v != &r && stream_finest_;
    const auto body = [uv, vv, rv, n, a = &a_, stream] { residual(uv, vv, rv, n, *a, stream); };
    if (&v == &r) {
      runtime.submit("resid", {read(u.interior(b)), read(u.ghosts(b)), readwrite(r.interior(b))},
                     body, attributes);
    } else {
      runtime.submit(
          "resid",
          {read(u.interior(b)), read(u.ghosts(b)), read(v.interior(b)), write(r.interior(b))}, body,
          attributes);
    }
  }

  void submit_smooth(int level, bool zero_first) {
    Runtime& runtime = session_.runtime();
    const UniformMesh& mesh = hierarchy_.mesh(level);
    const Int3 n = mesh.block_cells();
    BlockField& u = u_[level];
    const BlockField& r = r_[level];
    session_.exec().begin_phase("psinv");
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      runtime.submit(
          "psinv", {read(r.interior(b)), read(r.ghosts(b)), readwrite(u.interior(b))},
          [rv = block_view(r.layout(), r.data(b)), uv = block_view(u.layout(), u.data(b)), n,
           c = &c_, zero_first] { smooth(rv, uv, n, *c, zero_first); },
          smooth_attributes(mesh, b, level));
    }
    session_.exec().end_phase();
    hierarchy_.halo(level).exchange(u);
  }

  Session& session_;
  ProblemClass problem_;
  Coefficients a_;
  Coefficients c_;
  LevelHierarchy hierarchy_;
  LevelField u_;
  LevelField r_;
  BlockField v_;
  ExactSum norm_sum_;
  Handle norm_handle_;
  bool stream_finest_ = false;
  IterationGraph graph_;
  std::int64_t replayed_ = 0;
};

int run(int argc, char** argv) {
  Session session(argc, argv, "mg", "NAS Parallel Benchmarks MG on a multigrid block hierarchy");
  Options options;
  declare_options(session.option_registry(), options);
  // A V-cycle's tasks differ in size by orders of magnitude (finest blocks against coarse
  // levels and halo copies): equal task counts per thread (the fixed replay schedule)
  // leave one thread idle, so replays balance through the work-stealing queues unless
  // --replay-schedule says otherwise.
  session.cli().get_option("--replay-schedule")->default_val("balanced");
  session.start();
  refuse_cost_balance(session, options.balance, "mg");

  if (options.class_name.size() != 1 || !class_definition(options.class_name[0])) {
    session.fail("--class",
                 fmt::format("must be one of S, W, A, B, C, got '{}'", options.class_name));
  }
  const CLI::App& cli = session.cli();
  // A restart takes the problem options from the checkpoint; options given must agree.
  std::vector<int> given_cells = options.block_cells;
  if (given_cells.size() == 1) given_cells.assign(3, given_cells[0]);
  std::unique_ptr<CheckpointReader> restart = open_restart(
      session, options.checkpoint, "mg",
      problem_options(options.class_name, options.nx, options.nit, options.levels, given_cells),
      [&](const nlohmann::json& stored) {
        stored.at("--class").get_to(options.class_name);
        stored.at("--nx").get_to(options.nx);
        stored.at("--nit").get_to(options.nit);
        stored.at("--levels").get_to(options.levels);
        stored.at("--block-cells").get_to(options.block_cells);
      });
  const ProblemClass named = *class_definition(options.class_name[0]);
  const int nx = cli.count("--nx") > 0 || restart ? options.nx : named.nx;
  const int nit = cli.count("--nit") > 0 || restart ? options.nit : named.nit;
  if (!is_power_of_two(nx) || nx < 4 || nx > (1 << 20)) {
    session.fail("--nx", fmt::format("must be a power of two in [4, 2^20], got {}", nx));
  }
  if (nit < 0 || nit > (1 << 20)) {
    session.fail("--iterations", fmt::format("must be in [0, 2^20], got {}", nit));
  }
  // Default tiles: long x rows (up to 256 cells: few x-face ghost cells, each on a cache line
  // of its own, and little row padding), 64 cells in y and z, and at least two blocks on
  // the finest level so that it spreads over two workers.
  if (options.block_cells.empty()) {
    options.block_cells = {std::min(256, nx), std::min(64, nx / 2), std::min(64, nx / 2)};
  }
  if (options.block_cells.size() == 1) {
    options.block_cells = {options.block_cells[0], options.block_cells[0], options.block_cells[0]};
  }
  if (options.block_cells.size() != 3) {
    session.fail("--block-cells", "takes one edge B or three edges NX NY NZ");
  }
  const int max_levels = log2_of(nx);
  const int levels = cli.count("--levels") > 0 || restart ? options.levels : max_levels;
  if (levels < 1 || levels > max_levels) {
    session.fail("--levels", fmt::format("must be in [1, {}] for --nx {} (the coarsest level "
                                         "needs at least 2 cells per axis), got {}",
                                         max_levels, nx, options.levels));
  }
  const Int3 tile{options.block_cells[0], options.block_cells[1], options.block_cells[2]};
  for (int a = 0; a < 3; ++a) {
    if (!is_power_of_two(tile[a]) || tile[a] < 2 || tile[a] > std::min(nx, kMaxBlockCells)) {
      session.fail("--block-cells",
                   fmt::format("must be powers of two in [2, {}] that divide the grid's {} "
                               "cells per axis, got {}",
                               std::min(nx, kMaxBlockCells), nx, tile[a]));
    }
  }
  // NPB's classes cycle down to 2^3 cells; a shallower V-cycle is another algorithm (class U).
  const ProblemClass problem =
      levels == max_levels ? classify(nx, nit) : ProblemClass{'U', nx, nit, std::nullopt};

  const HierarchySpec spec{
      .cells = {nx, nx, nx},
      .block_cells = tile,
      .levels = levels,
      .periodic = Periodicity::all(),
      .ghost = 1,
      .halo = {.shape = HaloShape::full,
               .separate_buffers = true,
               .copy_per_block = true,
               .staged = options.staged_halo},
      .prolongation_ghost = 1,
      // Coarse levels stay spread over the ranks down to blocks of 8^3 cells: with one
      // block per rank, every level below the finest lived on rank 0, which ran a whole
      // V-cycle of nx/2 cells alone while the others waited (docs/scaling-sim.md, "mg").
      .min_blocks = session.size(),
      .min_block_cells = 512,
  };
  std::unique_ptr<Solver> solver;
  try {
    // u and r on every level, v on the finest; one halo exchange per level.
    session.check_memory("--class/--nx/--levels/--block-cells",
                         LevelHierarchy::memory_estimate(spec, session.size(), 2, 1));
    solver = std::make_unique<Solver>(session, spec, problem);
  } catch (const std::invalid_argument& e) {
    session.fail("--nx/--levels/--block-cells", e.what());
  }
  const bool replay = options.replay && session.options().exec == ExecModel::dataflow;
  // Made now: its constructor is a blocking collective, unsafe once messages fly.
  std::unique_ptr<CheckpointWriter> writer;
  if (options.checkpoint.every > 0)
    writer = std::make_unique<CheckpointWriter>(session.comm(), options.checkpoint);
  session.progress(
      "\n NAS Parallel Benchmarks (NPB 3.4 problem) -- MG Benchmark, tessera\n\n"
      " Size: {:4}x{:4}x{:4}  (class {})\n Iterations: {:4}\n Total number of processes: {:6}\n"
      " Levels: {}, blocks of up to {}x{}x{} cells, {} x {} thread(s), --exec {}{}",
      nx, nx, nx, problem.name, nit, session.size(), levels, tile.x, tile.y, tile.z, session.size(),
      session.runtime().threads(), to_string(session.options().exec),
      replay ? " (iteration graph replayed)" : "");

  // Untimed initialization and NPB's warm-up iteration, then the problem is set up again.
  session.set_phase("iterations");
  Exec& exec = session.exec();
  exec.begin_phase("setup");
  const double init_start = session.elapsed();
  solver->set_right_hand_side();
  solver->submit_finest_residual();
  solver->iterate(1, options.replay);
  solver->zero_solution();
  // A restart continues from the checkpoint's u (its step and first norm in the state).
  int done = 0;
  double initial_norm = 0;
  CheckpointRestore restored;
  if (restart) {
    restored = restore_checkpoint(session, *restart, [&] {
      read_whole_blocks(*restart, "u", solver->finest_u());
      done = static_cast<int>(restart->header().step);
      initial_norm = restart->header().state.at("initial_rnm2").get<double>();
    });
    restored.restarted_from = done;
    session.progress(" Restarted from {} (iteration {}) on {} rank(s)", restart->file(), done,
                     session.size());
  }
  const std::int64_t restarted_from = restart ? done : -1;
  restart.reset();
  exec.barrier();
  session.progress(" Initialization time: {:15.3f} seconds", session.elapsed() - init_start);

  MPI_Barrier(session.comm().mpi());
  // MPI_Wtime: the simulated clock under SMPI (docs/scaling-sim.md), the monotonic one else.
  const double start = MPI_Wtime();
  exec.begin_phase("timed");
  solver->submit_finest_residual();
  if (restarted_from < 0) initial_norm = solver->residual_norm();
  // Iterations in runs of --checkpoint-every, a checkpoint of u after each run.
  while (done < nit) {
    const int every = options.checkpoint.every;
    const int count = every > 0 ? std::min(every - done % every, nit - done) : nit - done;
    solver->iterate(count, options.replay);
    done += count;
    if (writer && options.checkpoint.due(done)) {
      CheckpointHeader header;
      header.app = "mg";
      header.problem =
          problem_options(std::string(1, named.name), nx, nit, levels, {tile.x, tile.y, tile.z});
      header.step = done;
      header.time = done;
      header.state = {{"initial_rnm2", initial_norm}};
      writer->submit(header, checkpoint_blocks(solver->hierarchy().mesh(0)),
                     {whole_block_field("u", solver->finest_u())});
      session.progress(" Checkpoint of iteration {} submitted ({}/step-{})", done,
                       options.checkpoint.dir, done);
    }
  }
  if (writer) writer->wait();
  const double rnm2 = solver->residual_norm();
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, session.comm().mpi());

  const double points = static_cast<double>(nx) * nx * nx;
  const double mops = seconds > 0 ? kOpsPerPointIteration * 1.0e-6 * nit * points / seconds : 0.0;
  bool verified = false;
  double error = 0.0;
  session.say("\n Benchmark completed");
  if (problem.verify_value) {
    error = std::abs(rnm2 - *problem.verify_value) / *problem.verify_value;
    verified = std::isfinite(error) && error <= kVerifyEpsilon;
    // NPB prints the norm and the error on success, the norm and the published value on
    // failure; both cases print all three here.
    session.say(
        " VERIFICATION {}\n L2 Norm is             {:20.13E}\n The correct L2 Norm is "
        "{:20.13E}\n Error is               {:20.13E}",
        verified ? "SUCCESSFUL" : "FAILED", rnm2, *problem.verify_value, error);
  } else {
    session.say(" Problem size unknown\n NO VERIFICATION PERFORMED\n L2 Norm is {:20.13E}", rnm2);
  }
  session.say(
      "\n\n MG Benchmark Completed.\n Class           = {:>24}\n Size            =  "
      "{:>13}x{:4}x{:4}\n"
      " Iterations      = {:>24}\n Time in seconds = {:>24.2f}\n Total processes = {:>24}\n"
      " Mop/s total     = {:>24.2f}\n Mop/s/process   = {:>24.2f}\n"
      " Operation type  =           floating point\n Verification    = {:>24}\n"
      " Version         = {:>24}\n",
      problem.name, nx, nx, nx, nit, seconds, session.size(), mops, mops / session.size(),
      verified ? "SUCCESSFUL" : "UNSUCCESSFUL", "tessera");
  session.say(
      "mg: class {} {}^3, {} iterations: rnm2 {:.13e} ({}), {:.3f} s, {:.2f} Mop/s on {} rank(s) "
      "x {} thread(s), --exec {}",
      problem.name, nx, nit, rnm2,
      verified ? "verified" : (problem.verify_value ? "NOT verified" : "unverified"), seconds, mops,
      session.size(), session.runtime().threads(), to_string(session.options().exec));

  const LevelHierarchy& h = solver->hierarchy();
  nlohmann::json level_json = nlohmann::json::array();
  for (int l = 0; l < h.levels(); ++l) {
    const UniformMesh& m = h.mesh(l);
    level_json.push_back(
        {{"cells", m.cells().x},
         {"blocks", {m.blocks().x, m.blocks().y, m.blocks().z}},
         {"block_cells", {m.block_cells().x, m.block_cells().y, m.block_cells().z}},
         {"ranks_with_blocks", std::min<std::int64_t>(m.global_block_count(), session.size())}});
  }
  // Peak resident memory of the largest rank (Linux reports ru_maxrss in KiB).
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  long peak_rss_kib = usage.ru_maxrss;
  MPI_Allreduce(MPI_IN_PLACE, &peak_rss_kib, 1, MPI_LONG, MPI_MAX, session.comm().mpi());
  nlohmann::json fields = {
      {"checksum", hex_bits(rnm2)},
      {"class", std::string(1, problem.name)},
      {"nx", nx},
      {"nit", nit},
      {"rnm2", rnm2},
      {"rnm2_hex", hex_bits(rnm2)},
      {"initial_rnm2", initial_norm},
      {"verify_value", problem.verify_value ? nlohmann::json(*problem.verify_value) : nullptr},
      {"relative_error", problem.verify_value ? nlohmann::json(error) : nullptr},
      {"verified", verified},
      {"solve_s", seconds},
      {"mops", mops},
      {"levels", level_json},
      {"block_cells", {tile.x, tile.y, tile.z}},
      {"replayed", replay},
      {"peak_rss_mib_largest_rank", static_cast<double>(peak_rss_kib) / 1024.0},
      {"checkpoint", checkpoint_report(writer.get(), restored)},
  };
  session.finish(std::move(fields));
  return verified || !problem.verify_value ? 0 : 1;
}

}  // namespace
}  // namespace tessera::mg

int main(int argc, char** argv) {
  return tessera::run_guarded([&] { return tessera::mg::run(argc, argv); });
}
