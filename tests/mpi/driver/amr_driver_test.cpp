// AmrDriver's cycle loop under every execution model: a scalar advected upwind on a 2-D
// adaptive mesh, growing by a source until a cell passes a limit (a fault). Checks that
// bsp, forkjoin and dataflow (replayed, submitted ahead of the step reduction, and
// submitted after it) on 1 and 2 threads give the same bits, reach the fault at the same
// cycle and describe the same state: a cycle submitted ahead of the reduction that found
// the fault is cancelled and changes nothing. Under ThreadSanitizer this is the driver's
// race check (the apps' tests run in the Release tree only).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/driver/amr_driver.hpp"
#include "tessera/driver/amr_solver.hpp"
#include "tessera/session.hpp"

namespace tessera {
namespace {

constexpr std::array<double, 2> kVelocity{1.0, 0.5};

// u_t + v . grad u = growth * u (first-order upwind, v > 0), refined where u > 0.4.
class GrowingAdvection final : public AmrSolver {
 public:
  GrowingAdvection(Session& session, double growth, double limit)
      : session_(session), growth_(growth), limit_(limit) {}

  std::vector<FieldSpec> fields() const override {
    FieldSpec u;
    u.name = "u";
    return {u};
  }
  std::vector<StageSpec> stages() const override { return {StageSpec{}}; }

  void submit_initial_state(AmrDriver& driver, const SolverBlock& b) override {
    const Domain& d = driver.options().domain;
    session_.runtime().submit(
        "initial", {write(driver.mesh().interior(b.index, 0))}, [b, d] {
          for_each_cell(b, [&](const std::array<std::int64_t, 3>& g, std::size_t c) {
            const double x = d.centre(0, g[0], b.place->level) - 0.3;
            const double y = d.centre(1, g[1], b.place->level) - 0.3;
            b.data[c] = 0.1 + std::exp(-40 * (x * x + y * y));
          });
        });
  }

  Refinement refinement(const SolverBlock& b) const override {
    double most = 0;
    for_each_cell(b, [&](const std::array<std::int64_t, 3>&, std::size_t c) {
      most = std::max(most, b.data[c]);
    });
    return most > 0.4 ? Refinement::refine : Refinement::coarsen;
  }

  StepEstimate time_step(const SolverBlock& b) const override {
    StepEstimate e;
    e.dt = 1 / (kVelocity[0] / b.dx[0] + kVelocity[1] / b.dx[1]);
    for_each_cell(b, [&](const std::array<std::int64_t, 3>&, std::size_t c) {
      e.fault = e.fault || b.data[c] > limit_;
    });
    return e;
  }

  void submit_stage(AmrDriver& driver, const StageContext& ctx) override {
    AmrMesh& mesh = driver.mesh();
    const std::int32_t i = ctx.block.index;
    std::vector<Access> acc{readwrite(mesh.interior(i, 0)), read(mesh.ghosts(i, 0, 0)),
                            read(mesh.ghosts(i, 0, 1)), read(ctx.step_handle)};
    session_.runtime().submit(
        "advect", std::span<const Access>(acc),
        [b = ctx.block, step = ctx.step, growth = growth_] {
          if (*step == 0) return;  // a cancelled cycle
          const BlockLayout l = b.shape->layout();
          const int nx = b.shape->cells[0], ny = b.shape->cells[1];
          // Upwind from the old values: sweep from the upper corner down.
          for (int x = nx - 1; x >= 0; --x)
            for (int y = ny - 1; y >= 0; --y) {
              double* u = b.data + l.index(0, x, y, 0);
              const double west = b.data[l.index(0, x - 1, y, 0)];
              const double south = b.data[l.index(0, x, y - 1, 0)];
              const double cx = *step * kVelocity[0] / b.dx[0];
              const double cy = *step * kVelocity[1] / b.dx[1];
              *u = (*u - cx * (*u - west) - cy * (*u - south)) * (1 + *step * growth);
            }
        },
        ctx.priority);
  }

  void describe_fault(AmrDriver& driver) override {
    faults_ += 1;
    fault_cycle_ = driver.cycle();
    fault_state_ = local_sum(driver);
  }

  void finished(AmrDriver& driver) override { end_state_ = local_sum(driver); }

  int faults() const { return faults_; }
  int fault_cycle() const { return fault_cycle_; }
  double fault_state() const { return fault_state_; }
  double end_state() const { return end_state_; }

 private:
  // Every rank's blocks in curve order: the sum of all ranks' values, in rank order.
  static double local_sum(AmrDriver& driver) {
    double sum = 0;
    for (LocalBlockIndex i = 0; i < driver.mesh().local_block_count(); ++i) {
      const SolverBlock b = driver.block(i);
      for_each_cell(b, [&](const std::array<std::int64_t, 3>&, std::size_t c) { sum += b.data[c]; });
    }
    std::vector<double> all(static_cast<std::size_t>(driver.session().size()));
    MPI_Allgather(&sum, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
    double total = 0;
    for (double v : all) total += v;
    return total;
  }

  Session& session_;
  double growth_, limit_;
  int faults_ = 0;
  int fault_cycle_ = -1;
  double fault_state_ = 0, end_state_ = 0;
};

struct Outcome {
  int exit_code = 0;
  int cycles = 0;
  std::string checksum;
  int faults = 0;
  int fault_cycle = -1;
  double fault_state = 0;
  double end_state = 0;
};

// One run of the driver under `exec` options; limit: the fault threshold.
Outcome run_driver(std::vector<std::string> exec, double limit, bool replay, bool lookahead) {
  std::vector<std::string> args{"amr_driver_test", "--quiet"};
  args.insert(args.end(), exec.begin(), exec.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  Session session(static_cast<int>(argv.size()), argv.data(), "amr_driver_test", "test");
  session.start();
  GrowingAdvection solver(session, 2.0, limit);
  AmrDriverOptions o;
  o.domain.dim = 2;
  o.domain.cells = {32, 32, 1};
  o.domain.lo = {0, 0, 0};
  o.domain.hi = {1, 1, 1};
  o.domain.dx = {1.0 / 32, 1.0 / 32, 1};
  o.root_blocks = {4, 4, 1};
  o.block_cells = {8, 8, 1};
  o.periodic = {true, true, false};
  o.max_level = 1;
  o.adapt_every = 3;  // two cycles of three go ahead under dataflow
  o.cfl = 0.8;
  o.t_end = 0.3;
  o.progress_every = 0;
  o.replay = replay;
  o.lookahead = lookahead;
  Outcome out;
  {
    AmrDriver driver(session, solver, o);
    out.exit_code = driver.run();
    const nlohmann::json j = driver.json();
    out.cycles = j["cycles"].get<int>();
    out.checksum = j.value("checksum", "");
  }
  out.faults = solver.faults();
  out.fault_cycle = solver.fault_cycle();
  out.fault_state = solver.fault_state();
  out.end_state = solver.end_state();
  return out;
}

struct Variant {
  std::vector<std::string> exec;
  bool replay = true;
  bool lookahead = true;
  std::string name() const {
    std::string n;
    for (const std::string& a : exec) n += a + " ";
    return n + (replay ? "replay" : lookahead ? "ahead" : "no-lookahead");
  }
};

const std::vector<Variant>& variants() {
  static const std::vector<Variant> v{
      {{"--exec", "bsp"}, true, true},
      {{"--exec", "forkjoin", "--threads", "2"}, true, true},
      {{"--exec", "dataflow"}, true, true},
      {{"--exec", "dataflow"}, false, true},
      {{"--exec", "dataflow", "--threads", "2"}, false, true},
      {{"--exec", "dataflow", "--threads", "2"}, false, false},
      {{"--exec", "dataflow", "--threads", "2"}, true, true},
  };
  return v;
}

TEST(AmrDriver, EveryModelAndLookaheadGiveTheSameBits) {
  const Outcome reference = run_driver(variants()[0].exec, 1e9, true, true);
  ASSERT_EQ(reference.exit_code, 0);
  ASSERT_GT(reference.cycles, 10);
  ASSERT_EQ(reference.faults, 0);
  for (const Variant& v : variants()) {
    const Outcome o = run_driver(v.exec, 1e9, v.replay, v.lookahead);
    EXPECT_EQ(o.exit_code, 0) << v.name();
    EXPECT_EQ(o.cycles, reference.cycles) << v.name();
    EXPECT_EQ(o.checksum, reference.checksum) << v.name();
    EXPECT_EQ(o.end_state, reference.end_state) << v.name();
  }
}

TEST(AmrDriver, AFaultStopsEveryModelAtTheSameCycleAndState) {
  // The source makes the largest value pass 1.5 some cycles in, on a cycle without
  // adaptation, so that dataflow has submitted the next cycle ahead and must cancel it.
  const Outcome reference = run_driver(variants()[0].exec, 1.5, true, true);
  ASSERT_EQ(reference.exit_code, 1);
  ASSERT_EQ(reference.faults, 1);
  ASSERT_GT(reference.fault_cycle, 1);
  ASSERT_NE(reference.fault_cycle % 3, 0) << "the fault should come on a cycle going ahead";
  for (const Variant& v : variants()) {
    const Outcome o = run_driver(v.exec, 1.5, v.replay, v.lookahead);
    EXPECT_EQ(o.exit_code, 1) << v.name();
    EXPECT_EQ(o.faults, 1) << v.name();
    EXPECT_EQ(o.fault_cycle, reference.fault_cycle) << v.name();
    EXPECT_EQ(o.fault_state, reference.fault_state) << v.name();
  }
}

}  // namespace
}  // namespace tessera
