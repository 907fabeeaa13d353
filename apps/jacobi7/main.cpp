// jacobi7: -Laplace(u) = f on the unit cube, u = 0 on the boundary, solved by Jacobi
// iterations with the 7-point stencil on a uniform block mesh, under any execution model.
//
// Every iteration exchanges the halo of u with other ranks (pack / send / receive / unpack
// tasks) and sweeps every block from u into v; a sweep reads the faces of neighbouring
// blocks of its own rank in place (or, with --copy-local-ghosts, from ghosts filled by
// local copy tasks). Every --check-every iterations the residual
// and the error against the manufactured solution are computed as tasks and summed exactly
// over ranks; a check is validated and printed only when the next one has been submitted,
// so the pipeline never drains for it. The final checksum is the exact sum of u over all
// cells: bitwise the same for every model, rank count, thread count and halo option.
//
// With --time-tile D, u's ghosts are D cells deep and exchanged (faces, edges and corners,
// local ghosts by copy) every D iterations, and one task per block runs those D iterations
// in one pass over the block (PlanePipeline), so u and f are read from memory and v
// written once per D iterations; every cell value is computed by the same row kernel from
// the same inputs as in D plain sweeps, so the bits do not change.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "face_sources.hpp"
#include "jacobi_kernels.hpp"
#include "options.hpp"
#include "plane_pipeline.hpp"
#include "poisson_problem.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_report.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/block_migration.hpp"
#include "tessera/mesh/halo_exchange.hpp"
#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"
#include "tessera/mesh/wavefront_order.hpp"
#include "tessera/mesh/weighted_split.hpp"
#include "tessera/option_registry.hpp"
#include "tessera/restart.hpp"
#include "tessera/runtime/cost_table.hpp"
#include "tessera/session.hpp"

namespace tessera::jacobi7 {
namespace {

// Iterations the submission may run ahead of the sweeps: two bands of a wavefront, so that
// the next band is queued before the current one drains, and at least 4.
int lookahead_iterations(const Options& o) {
  return std::max(4, 2 * o.wavefront_depth);
}

// u, v and f keep no ghost cells when the sweeps read every face elsewhere: local faces in
// place, remote ones in the receive sections (fused on every axis), the boundary's zeros
// from one shared array. Then a sweep streams only interiors (a 32^3 block with its ghost
// layer and row padding is 1.41x the interior's lines). The kernels index the three
// fields with one layout, so they share the choice.
GhostCells stencil_ghost_cells(const Options& o) {
  return fused_axes(o) == 7 && !halo_options(o).copy_local ? GhostCells::none : GhostCells::stored;
}

Int3 to_int3(const std::vector<int>& v) {
  return {v[0], v[1], v[2]};
}

/// A residual/error check in flight: its exact sums and the handles their tasks reduce to.
struct Check {
  int iteration = -1;
  ExactSum residual;
  ExactSum error;
  Handle residual_handle;
  Handle error_handle;
};

struct CheckResult {
  int iteration;
  double residual;
  double error;
};

class Solver {
 public:
  Solver(Session& session, const Options& options, const UniformMesh& mesh,
         CheckpointWriter* writer)
      : session_(session),
        options_(options),
        mesh_(mesh),
        problem_(mesh),
        plan_(mesh, halo_options(options)),
        halo_(plan_, 1, session.comm(), session.exec()),
        fused_(fused_axes(options)),
        fused_packs_(options.fused_packing == "receive" ? std::uint8_t{0} : fused_),
        u_(mesh, session.runtime(), "u", 1, stencil_ghost_cells(options)),
        v_(mesh, session.runtime(), "v", 1, stencil_ghost_cells(options)),
        f_(mesh, session.runtime(), "f", 1, stencil_ghost_cells(options)),
        lookahead_(lookahead_iterations(options)),
        order_by_iteration_(session.options().exec == ExecModel::dataflow),
        // Depth 1 reuses nothing across iterations: it keeps the streaming choice.
        output_stores_(options.wavefront_depth > 1 ? OutputStores::cached
                                                   : sweep_output_stores(u_)),
        writer_(writer) {
    if (options.wavefront_depth > 0)
      wavefront_ = std::make_unique<WavefrontOrder>(mesh, options.wavefront_depth);
    const Int3 n = u_.layout().cells();
    const std::size_t columns = 2 * static_cast<std::size_t>(mesh.local_block_count()) *
                                static_cast<std::size_t>(n.y) * static_cast<std::size_t>(n.z);
    // u starts at zero, and so do the copies of its columns.
    u_columns_.assign(columns, 0.0);
    v_columns_.assign(columns, 0.0);
    // Read in place of boundary ghosts by vector loads: aligned like a block's rows.
    const std::size_t zeros = boundary_values(u_) + BlockLayout::kRowAlignment;
    boundary_.assign(zeros, 0.0);
    // Fused packing: v's exchange has buffers of its own, so that the sweeps writing v's
    // send sections need not wait for u's messages to leave (and those reading u's receive
    // sections do not hold up v's receives).
    if (fused_ != 0)
      halo_v_ = std::make_unique<HaloExchange>(plan_, 1, session.comm(), session.exec(), "halo.v");
    find_fused_sections();
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      const bool in_place = !plan_.options().copy_local;
      u_faces_.push_back(face_sources(u_, b, in_place, u_columns_.data(), boundary_zeros()));
      v_faces_.push_back(face_sources(v_, b, in_place, v_columns_.data(), boundary_zeros()));
      add_fused_faces(u_faces_.back(), exchange_of(u_), b);
      add_fused_faces(v_faces_.back(), exchange_of(v_), b);
    }
    Runtime& runtime = session.runtime();
    for (Check& check : checks_) {
      check.residual_handle =
          runtime.create_reduction_handle("residual", &check.residual, add_exact);
      check.error_handle = runtime.create_reduction_handle("error", &check.error, add_exact);
    }
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      for (int w = 0; w < lookahead_; ++w) {
        sweep_done_.push_back(runtime.create_handle(fmt::format("sweep-done[{}:{}]", b, w)));
      }
    }
  }

  /// Continues from a checkpoint: u and the check history as they were after its step.
  void restore(CheckpointReader& reader) {
    // No task has been submitted yet: the main thread owns the blocks.
    const Int3 n = u_.layout().cells();
    reader.read_field(
        "u", mesh_.local_block_count() > 0 ? mesh_.local_block(0).curve_index : 0,
        mesh_.local_block_count(), cells_per_block(), [&](std::int64_t b, const double* in) {
          for (int k = 0; k < n.z; ++k)
            for (int j = 0; j < n.y; ++j) {
              std::copy(in, in + n.x,
                        u_.data(static_cast<LocalBlockIndex>(b)) + u_.layout().index(0, 0, j, k));
              in += n.x;
            }
        });
    copy_columns(u_, u_faces_);
    for (const auto& c : reader.header().state.at("history"))
      history_.push_back({c.at("iteration").get<int>(), c.at("residual").get<double>(),
                          c.at("error").get<double>()});
    first_iteration_ = static_cast<int>(reader.header().step);
  }

  /// Submits the tasks computing f (once per solver, before its first iteration).
  void setup() {
    Exec& exec = session_.exec();
    exec.begin_phase("setup");
    // A tile reads f on its grown block: f's ghosts are filled once, f never changes.
    const int rhs_ghost = options_.time_tile > 1 ? options_.time_tile : 0;
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().submit(
          "init", {write(f_.interior(b)), write(f_.ghosts(b))}, [this, b, rhs_ghost] {
            fill_rhs(f_.layout(), problem_, mesh_.cell_origin(mesh_.local_block(b)), f_.data(b),
                     rhs_ghost);
          });
    }
    exec.barrier();
  }

  /// Submits iterations up to `stop` (exclusive) and waits for every task; the check in
  /// flight is validated, so another solver can continue from this one.
  void iterate_until(int stop) {
    Exec& exec = session_.exec();
    const bool sweep = options_.work != "halo";
    // Tiles of --time-tile iterations start at multiples of it (after a restart from another
    // step the first one is shorter), so checks and checkpoints fall on tile boundaries.
    const int tile = options_.time_tile;
    int tiles = 0;
    int it = first_iteration_;
    for (; it < stop; ++tiles) {
      const int depth = std::min(tile - it % tile, stop - it);
      if (sweep && tiles >= lookahead_) wait_for_sweeps(tiles - lookahead_);
      if (options_.work == "compute") {
        halo_.exchange_local(*u_now_);
      } else {
        exchange(*u_now_);
      }
      exec.begin_phase("stencil");
      if (options_.work == "full" && options_.check_every > 0 && it % options_.check_every == 0) {
        submit_check(it);
      }
      if (sweep) {
        if (tile > 1) {
          submit_tiles(it, tiles, depth);
        } else {
          submit_sweeps(it, tiles);
        }
      }
      exec.end_phase();
      std::swap(u_now_, u_next_);
      it += depth;
      if (options_.checkpoint.due(it)) submit_checkpoint(it);
    }
    first_iteration_ = std::max(first_iteration_, it);
    if (writer_) {
      exec.begin_phase("checkpoint");
      writer_->wait();
      exec.end_phase();
    }
    session_.runtime().wait_all();
    if (stop < options_.iters && checks_submitted_ > 0) {
      validate(checks_[(checks_submitted_ - 1) % 2]);
    }
  }

  /// Residual and error of the final iterate (after all earlier checks were printed).
  CheckResult final_check() {
    if (options_.work == "full") exchange(*u_now_);
    session_.exec().begin_phase("check");
    submit_check(options_.iters);
    validate(checks_[(checks_submitted_ - 1) % 2]);
    return history_.back();
  }

  /// The exact sum of u over all cells of all ranks.
  double checksum() {
    Runtime& runtime = session_.runtime();
    ExactSum sum;
    const Handle h = runtime.create_reduction_handle("checksum", &sum, add_exact);
    BlockField& u = *u_now_;
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      runtime.submit("checksum", {read(u.interior(b)), reduce(h)},
                     [layout = &u.layout(), data = u.data(b), h](TaskContext& ctx) {
                       ExactSum& slot = ctx.reduction_slot<ExactSum>(h);
                       const Int3 n = layout->cells();
                       for (int k = 0; k < n.z; ++k)
                         for (int j = 0; j < n.y; ++j) {
                           const double* row = data + layout->index(0, 0, j, k);
                           for (int i = 0; i < n.x; ++i) slot.add(row[i]);
                         }
                     });
    }
    session_.comm().iallreduce_sum(h, &sum);
    runtime.wait_for(h);
    return sum.value();
  }

  const std::vector<CheckResult>& history() const { return history_; }
  /// Continues from `previous` (a solver of the same problem on another partition of the
  /// blocks): submits the tasks moving its current u into this solver's u (BlockMigration)
  /// and takes its check history and iteration. Waits for them. Every rank, main thread,
  /// both solvers idle (after iterate_until).
  std::int64_t continue_from(Solver& previous, const TagSpace& tags) {
    std::int64_t sent = 0;
    {
      const BlockMigration migration(session_.comm(), *previous.u_now_, u_, tags);
      sent = migration.blocks_sent();
      session_.runtime().wait_all();
    }
    copy_columns(u_, u_faces_);
    history_ = previous.history_;
    first_iteration_ = previous.first_iteration_;
    return sent;
  }
  const HaloPlan& plan() const { return plan_; }

 private:
  // The exchange whose buffers hold `field`'s halo: one per field with fused packing.
  HaloExchange& exchange_of(const BlockField& field) {
    return &field == &v_ && halo_v_ ? *halo_v_ : halo_;
  }

  // Exchanges field's halo. With fused packing the sweeps read the fused faces from the
  // receive buffer (no unpack tasks); with `all` and `x` the last sweep writing `field` also
  // filled their send sections (no pack tasks), except before any sweep wrote it (the first
  // iteration, a restart), when pack tasks fill them.
  void exchange(BlockField& field) {
    if (fused_ == 0) {
      halo_.exchange(field);
      return;
    }
    const bool swept = &field == &u_ ? u_swept_ : v_swept_;
    exchange_of(field).exchange(field, HaloFusion{swept ? fused_packs_ : std::uint8_t{0}, fused_});
  }

  // Per local block and face: the send and receive sections (the same indices in u's and
  // v's exchanges) of its fused faces towards other ranks, or -1.
  void find_fused_sections() {
    const std::array<int, 6> none{-1, -1, -1, -1, -1, -1};
    fused_send_.assign(mesh_.local_block_count(), none);
    fused_receive_.assign(mesh_.local_block_count(), none);
    if (fused_ == 0) return;
    const auto faces = halo_directions(HaloShape::faces);
    const auto face_of = [&](Direction d) {
      for (int f = 0; f < 6; ++f)
        if (faces[f] == d) return f;
      return -1;
    };
    const auto fill = [&](const HaloSide& side, std::uint8_t axes,
                          std::vector<std::array<int, 6>>& out) {
      for (int s = 0; s < static_cast<int>(side.sections.size()); ++s) {
        const HaloSection& section = side.sections[s];
        const int f = face_of(section.direction);
        if (f < 0 || (axes & (1 << (f / 2))) == 0) continue;
        out[section.block][f] = s;
      }
    };
    fill(plan_.sends(), fused_packs_, fused_send_);
    fill(plan_.receives(), fused_, fused_receive_);
  }

  // Points block b's faces that fused packing covers at `halo`'s sections: the sweep reads
  // the ghosts from the receive section and, writing this field, fills the send section.
  void add_fused_faces(FaceSources& faces, HaloExchange& halo, LocalBlockIndex b) const {
    for (int f = 0; f < 6; ++f) {
      const int send = fused_send_[b][f];
      const int receive = fused_receive_[b][f];
      if (receive >= 0)
        (f < 2 ? faces.x_column[f] : faces.ghost_rows[f - 2]) = halo.receive_data(receive);
      if (send >= 0) {
        if (f < 2) {
          faces.own_column[f] = halo.send_data(send);
        } else {
          faces.own_rows[f - 2] = halo.send_data(send);
        }
      }
    }
  }

  // Modelled compute's variant of a sweep of block b (TaskAttributes::work_variant): its
  // fused faces per axis, nx + 3 ny + 9 nz (0 without: its cost does not depend on where
  // it reads its faces from). A fused face adds its copies to the sweep's cost;
  // bench/scaling-sim composes the variants it did not calibrate from those of one face.
  // With --fused-packing receive (faces read in place, packed by tasks) the count is offset
  // by 27: such a sweep reads its faces from the buffers but writes none.
  std::uint8_t sweep_variant(LocalBlockIndex b) const {
    int variant = 0;
    for (int f = 0; f < 6; ++f)
      if (fused_receive_[b][f] >= 0) variant += f < 2 ? 1 : f < 4 ? 3 : 9;
    if (variant > 0 && fused_packs_ == 0) variant += 27;
    return static_cast<std::uint8_t>(variant);
  }

  static void add_exact(ExactSum& total, const ExactSum& part) { total.add(part); }

  std::size_t cells_per_block() const {
    return static_cast<std::size_t>(product(u_.layout().cells()));
  }

  // The state after `step` iterations: u's interior per block, in Morton curve order, and
  // the validated checks (the check in flight is validated first so that the history is
  // complete). The copies are tasks reading u: they run after the last sweep writing it
  // and before the next sweep overwriting it, while the sweep reading it goes on.
  void submit_checkpoint(int step) {
    Exec& exec = session_.exec();
    exec.begin_phase("checkpoint");
    if (checks_submitted_ > 0) validate(checks_[(checks_submitted_ - 1) % 2]);
    CheckpointHeader header;
    header.app = "jacobi7";
    header.problem = session_.option_registry().problem();
    header.step = step;
    header.time = step;
    nlohmann::json history = nlohmann::json::array();
    for (const CheckResult& c : history_)
      history.push_back({{"iteration", c.iteration}, {"residual", c.residual}, {"error", c.error}});
    header.state = {{"history", history}};
    CheckpointBlocks blocks;
    blocks.global_count = mesh_.global_block_count();
    blocks.first = mesh_.local_block_count() > 0 ? mesh_.local_block(0).curve_index : 0;
    for (const MeshBlock& b : mesh_.local_blocks())
      blocks.places.push_back({0, b.coord.x, b.coord.y, b.coord.z});
    const BlockField* u = u_now_;
    CheckpointField field;
    field.name = "u";
    field.values_per_block = cells_per_block();
    field.reads = [u](std::int32_t b, std::vector<Handle>& out) { out.push_back(u->interior(b)); };
    field.pack = [u](std::int32_t b, double* out) {
      const Int3 n = u->layout().cells();
      for (int k = 0; k < n.z; ++k)
        for (int j = 0; j < n.y; ++j) {
          const double* row = u->data(b) + u->layout().index(0, 0, j, k);
          out = std::copy(row, row + n.x, out);
        }
    };
    writer_->submit(header, blocks, {field});
    session_.progress("jacobi7: checkpoint of iteration {} submitted ({}/step-{})", step,
                      options_.checkpoint.dir, step);
    exec.end_phase();
  }

  // A sweep's output is next read one iteration later, after every other local block has
  // been swept: it stays in cache only if this rank's u, v and f all fit in the last-level
  // cache; otherwise streaming stores save the read-for-ownership of every output line.
  static OutputStores sweep_output_stores(const BlockField& u) {
    constexpr double kLastLevelCacheBytes = 32 << 20;  // AMD EPYC's L3 per CCD
    const double field_bytes =
        static_cast<double>(u.layout().size()) * sizeof(double) * u.block_count();
    return 3 * field_bytes > kLastLevelCacheBytes ? OutputStores::streaming : OutputStores::cached;
  }

  // The copies of each block's first and last column that x neighbours read (FaceSources),
  // from the field itself: after a restart has set u directly.
  static void copy_columns(const BlockField& field, const std::vector<FaceSources>& faces) {
    const BlockLayout& layout = field.layout();
    const Int3 n = layout.cells();
    for (LocalBlockIndex b = 0; b < static_cast<LocalBlockIndex>(faces.size()); ++b)
      for (int side = 0; side < 2; ++side) {
        double* copy = faces[b].own_column[side];
        if (!copy) continue;
        for (int k = 0; k < n.z; ++k)
          for (int j = 0; j < n.y; ++j)
            copy[std::ptrdiff_t{k} * n.y + j] =
                field.data(b)[layout.index(0, side == 0 ? 0 : n.x - 1, j, k)];
      }
  }

  // The first 64-byte aligned double of boundary_.
  const double* boundary_zeros() const {
    const auto address = reinterpret_cast<std::uintptr_t>(boundary_.data());
    const std::uintptr_t line = BlockLayout::kRowAlignment * sizeof(double);
    return boundary_.data() + (line - address % line) % line / sizeof(double);
  }

  const std::vector<FaceSources>& faces_of(const BlockField& field) const {
    return &field == &u_ ? u_faces_ : v_faces_;
  }

  // Starts accesses_ with what a stencil on block b of u reads: its interior and ghosts,
  // the interiors of the local neighbours it reads in place, and f's interior.
  void collect_stencil_reads(const BlockField& u, LocalBlockIndex b) {
    accesses_.clear();
    accesses_.push_back(read(u.interior(b)));
    accesses_.push_back(read(u.ghosts(b)));
    accesses_.push_back(read(f_.interior(b)));
    const FaceSources& faces = faces_of(u)[b];
    const auto directions = halo_directions(HaloShape::faces);
    for (int face = 0; face < 6; ++face) {
      if (faces.data[face] == u.data(b)) continue;
      accesses_.push_back(
          read(u.interior(mesh_.local_block(b).neighbour_local[directions[face].index()])));
    }
    for (int face = 0; face < 6; ++face) {
      if (fused_receive_[b][face] >= 0)
        accesses_.push_back(read(exchange_of(u).receive_handle(fused_receive_[b][face])));
    }
  }

  // The pipeline of `depth` iterations for block b: its faces on the domain boundary keep
  // u's boundary values. Made on the main thread, shared by the tasks.
  const PlanePipeline& pipeline_for(LocalBlockIndex b, int depth) {
    const MeshBlock& block = mesh_.local_block(b);
    const auto faces = halo_directions(HaloShape::faces);
    PlanePipeline::BoundaryFaces boundary{};
    int key = depth;
    for (int f = 0; f < 6; ++f) {
      boundary[f] = block.neighbour[faces[f].index()] == kNoBlock;
      key = 2 * key + (boundary[f] ? 1 : 0);
    }
    std::unique_ptr<PlanePipeline>& pipeline = pipelines_[key];
    if (!pipeline) pipeline = std::make_unique<PlanePipeline>(u_.layout(), depth, boundary);
    return *pipeline;
  }

  // Blocks other ranks wait for (whose halo of `shape` faces another rank) go first.
  Priority block_priority(const MeshBlock& block, HaloShape shape) const {
    return block.is_skeleton(shape) ? session_.exec().skeleton_priority() : Priority::normal;
  }

  // One task per block running iterations it .. it + depth - 1 (tile number `tile`) from u's
  // grown block (interior and ghosts) and f's into v's interior.
  void submit_tiles(int it, int tile, int depth) {
    Runtime& runtime = session_.runtime();
    const BlockField& u = *u_now_;
    BlockField& v = *u_next_;
    const StencilCoefficients* c = &problem_.coefficients();
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      const MeshBlock& block = mesh_.local_block(b);
      const Priority priority = block_priority(block, HaloShape::full);
      const Access accesses[] = {
          read(u.interior(b)),  read(u.ghosts(b)),
          read(f_.interior(b)), read(f_.ghosts(b)),
          write(v.interior(b)), write(sweep_done_[b * lookahead_ + tile % lookahead_])};
      TaskAttributes attributes(priority, {block.id, it});
      attributes.work = static_cast<std::int64_t>(cells_per_block()) * depth;  // modelled
      attributes.cost_slot = b;  // measured for --balance cost
      runtime.submit(
          "jacobi.tile", std::span<const Access>(accesses),
          [pipeline = &pipeline_for(b, depth), layout = &u.layout(), c, in = u.data(b),
           rhs = f_.data(b), out = v.data(b), stores = output_stores_] {
            jacobi_time_tile(*pipeline, *layout, *c, in, rhs, out, stores);
          },
          attributes);
    }
  }

  void submit_sweeps(int it, int tile) {
    Runtime& runtime = session_.runtime();
    const BlockField& u = *u_now_;
    BlockField& v = *u_next_;
    const StencilCoefficients* c = &problem_.coefficients();
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      const MeshBlock& block = mesh_.local_block(b);
      const Priority priority = block_priority(block, HaloShape::faces);
      collect_stencil_reads(u, b);
      accesses_.push_back(write(v.interior(b)));
      accesses_.push_back(write(sweep_done_[b * lookahead_ + tile % lookahead_]));
      for (int face = 0; face < 6; ++face) {
        if (fused_send_[b][face] >= 0)
          accesses_.push_back(write(exchange_of(v).send_handle(fused_send_[b][face])));
      }
      // A wavefront orders every sweep; skeleton blocks then go in their layer's turn.
      TaskAttributes attributes(wavefront_ ? Priority::normal : priority, {block.id, it});
      if (wavefront_) {
        attributes.order = wavefront_->key(b, it);
      } else if (order_by_iteration_) {
        attributes.order = 2 * static_cast<std::int64_t>(it) + (priority == Priority::high ? 0 : 1);
      }
      attributes.work = static_cast<std::int64_t>(cells_per_block());  // modelled compute
      attributes.work_variant = sweep_variant(b);
      attributes.cost_slot = b;  // measured for --balance cost
      runtime.submit(
          "jacobi", std::span<const Access>(accesses_),
          [layout = &u.layout(), c, in = u.data(b), faces = &faces_of(u)[b], rhs = f_.data(b),
           out = v.data(b), stores = output_stores_, out_faces = &faces_of(v)[b]] {
            jacobi_sweep(*layout, *c, in, *faces, rhs, out, stores, *out_faces);
          },
          attributes);
    }
    (&v == &u_ ? u_swept_ : v_swept_) = true;
  }

  // Keeps at most lookahead_ iterations of tasks in flight (memory stays bounded for any
  // --iters); sweeps of one block are ordered anyway, so this adds no dependency.
  void wait_for_sweeps(int tile) {
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      session_.runtime().wait_for(sweep_done_[b * lookahead_ + tile % lookahead_]);
    }
  }

  void submit_check(int it) {
    Runtime& runtime = session_.runtime();
    Check& check = checks_[checks_submitted_ % 2];
    check.iteration = it;
    const BlockField& u = *u_now_;
    for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
      const Handle rh = check.residual_handle;
      const Handle eh = check.error_handle;
      collect_stencil_reads(u, b);
      accesses_.push_back(reduce(rh));
      accesses_.push_back(reduce(eh));
      runtime.submit("check", std::span<const Access>(accesses_),
                     [this, in = u.data(b), faces = &faces_of(u)[b], b, rh, eh](TaskContext& ctx) {
                       const BlockNorms norms = block_norms(f_.layout(), problem_,
                                                            mesh_.cell_origin(mesh_.local_block(b)),
                                                            in, *faces, f_.data(b));
                       ctx.reduction_slot<ExactSum>(rh).add(norms.residual_squared);
                       ctx.reduction_slot<ExactSum>(eh).add(norms.error_squared);
                     });
    }
    session_.comm().iallreduce_sum(check.residual_handle, &check.residual);
    session_.comm().iallreduce_sum(check.error_handle, &check.error);
    if (checks_submitted_ > 0) validate(checks_[(checks_submitted_ - 1) % 2]);
    ++checks_submitted_;
  }

  // Waits for a check's global sums, prints and records it, and frees its slot.
  void validate(Check& check) {
    if (check.iteration < 0) return;
    Runtime& runtime = session_.runtime();
    runtime.wait_for(check.residual_handle);
    runtime.wait_for(check.error_handle);
    const double cells = static_cast<double>(product(mesh_.cells()));
    const double residual = std::sqrt(check.residual.value() / cells);
    const double error = std::sqrt(check.error.value() / cells);
    if (!std::isfinite(residual) || !std::isfinite(error)) {
      throw std::runtime_error(fmt::format("iteration {}: residual {} or error {} is not finite",
                                           check.iteration, residual, error));
    }
    history_.push_back({check.iteration, residual, error});
    session_.progress("iter {:>8}  residual {:.6e}  error {:.6e}  elapsed {:.3f} s",
                      check.iteration, residual, error, session_.elapsed());
    check.iteration = -1;
    check.residual = ExactSum{};
    check.error = ExactSum{};
  }

  Session& session_;
  const Options& options_;
  const UniformMesh& mesh_;
  PoissonProblem problem_;
  HaloPlan plan_;
  HaloExchange halo_;                     // u's (and, without fused packing, v's) halo
  std::unique_ptr<HaloExchange> halo_v_;  // v's halo with fused packing
  std::uint8_t fused_;                    // fused_axes(options): faces read from the receive buffer
  std::uint8_t fused_packs_;  // of those, the faces the sweeps also pack (all but receive)
  std::vector<std::array<int, 6>> fused_send_;  // find_fused_sections
  std::vector<std::array<int, 6>> fused_receive_;
  bool u_swept_ = false;  // whether a sweep wrote the field (and its fused send sections)
  bool v_swept_ = false;
  BlockField u_;
  BlockField v_;
  BlockField f_;
  BlockField* u_now_ = &u_;
  BlockField* u_next_ = &v_;
  std::array<Check, 2> checks_;
  int checks_submitted_ = 0;
  std::vector<Handle> sweep_done_;
  std::vector<FaceSources> u_faces_;  // per block: where sweeps of u read beyond its faces
  std::vector<FaceSources> v_faces_;
  std::vector<double> u_columns_;  // FaceSources::own_column storage of u and of v
  std::vector<double> v_columns_;
  std::vector<double> boundary_;  // zeros: u's boundary values without ghost cells
  std::vector<Access> accesses_;  // scratch for the task being submitted
  std::vector<CheckResult> history_;
  int lookahead_;  // lookahead_iterations
  // Dataflow: sweeps run oldest iteration first (skeleton blocks first within one), not in
  // the order their halos arrive. In arrival order a rank late for one neighbour swept
  // that neighbour's blocks late too, and the delay spread from rank to rank: 64 simulated
  // ranks took 0.25 ms per iteration against bsp's 0.22 (docs/scaling-sim.md).
  bool order_by_iteration_;
  std::unique_ptr<WavefrontOrder> wavefront_;
  std::map<int, std::unique_ptr<PlanePipeline>> pipelines_;  // by depth and boundary faces
  OutputStores output_stores_;
  int first_iteration_ = 0;   // the restart's step, or 0
  CheckpointWriter* writer_;  // run()'s, when checkpoints are written
};

// What one rank allocates: the mesh with fields u, v, f (halo of u only), and per block the
// runtime handles (two per field, a sweep marker per iteration in flight) and the tasks of
// the iterations in flight.
MemoryEstimate memory_needed(Int3 blocks, Int3 cells, int ghost, int ranks, int lookahead) {
  MemoryEstimate need = UniformMesh::memory_estimate(blocks, cells, ghost, ranks, 3, 1);
  constexpr double kHandleBytes = 256, kTaskBytes = 512;
  const double local =
      std::ceil(static_cast<double>(blocks.x) * blocks.y * blocks.z / ranks);  // 2^63 fits
  need.add("metadata", local * (2 * sizeof(FaceSources) + (6 + lookahead) * kHandleBytes +
                                lookahead * 2 * kTaskBytes));
  need.add("column copies",
           local * 2 * 2 * static_cast<double>(cells.y) * cells.z * sizeof(double));
  return need;
}

int run(int argc, char** argv) {
  Session session(argc, argv, "jacobi7", "3-D Poisson, 7-point Jacobi on a uniform block mesh");
  Options options;
  declare_options(session.option_registry(), options);
  session.start();
  // A restart takes the problem options from the checkpoint; options given again must agree.
  std::unique_ptr<CheckpointReader> restart = open_restart(session, options.checkpoint, "jacobi7");

  const Int3 blocks = to_int3(options.blocks);
  const Int3 cells = to_int3(options.block_cells);
  if (std::int64_t{blocks.x} * cells.x < 2 || std::int64_t{blocks.y} * cells.y < 2) {
    session.fail("--blocks/--block-cells",
                 fmt::format("the x and y axes need at least 2 cells each (got {} x {})",
                             blocks.x * cells.x, blocks.y * cells.y));
  }
  validate_time_tile(session, options, blocks, cells);
  session.check_memory("--blocks/--block-cells",
                       memory_needed(blocks, cells, options.time_tile, session.size(),
                                     lookahead_iterations(options)));
  std::unique_ptr<UniformMesh> mesh;
  try {
    mesh = std::make_unique<UniformMesh>(blocks, cells, options.time_tile, session.rank(),
                                         session.size());
  } catch (const std::invalid_argument& e) {
    session.fail("--blocks/--block-cells", e.what());
  }

  // Made now: its constructor is a blocking collective, unsafe once messages fly.
  std::unique_ptr<CheckpointWriter> writer;
  if (options.checkpoint.every > 0)
    writer = std::make_unique<CheckpointWriter>(session.comm(), options.checkpoint);
  auto solver = std::make_unique<Solver>(session, options, *mesh, writer.get());
  CheckpointRestore restored;
  restored.restarted_from = restart ? restart->header().step : -1;
  const std::int64_t restarted_from = restored.restarted_from;
  if (restart) {
    restored = restore_checkpoint(session, *restart, [&] { solver->restore(*restart); });
    restored.restarted_from = restarted_from;
    session.progress("jacobi7: restarted from {} (iteration {}) on {} rank(s)", restart->file(),
                     restart->header().step, session.size());
    restart.reset();
  }
  const Int3 n = mesh->cells();
  session.progress(
      "jacobi7: {} x {} x {} cells in {} x {} x {} blocks of {} x {} x {}, {} "
      "iterations, {} on {} rank(s) x {} thread(s)",
      n.x, n.y, n.z, blocks.x, blocks.y, blocks.z, cells.x, cells.y, cells.z, options.iters,
      to_string(session.options().exec), session.size(), session.runtime().threads());
  session.set_phase("iterations");
  // --balance cost: the sweeps' measured time per block decides the next partition.
  const BalanceOptions& balance = options.balance;
  CostTable costs(session.runtime().threads(), static_cast<std::size_t>(mesh->local_block_count()));
  if (balance.cost()) session.runtime().set_cost_table(&costs);
  const TagSpace migration_tags = session.comm().allocate_tags("migration", 1);
  std::int64_t repartitions = 0, blocks_moved = 0;
  solver->setup();
  MPI_Barrier(MPI_COMM_WORLD);
  // MPI's clock: simulated time when the run is simulated with SimGrid SMPI.
  const double start = MPI_Wtime();
  const int first = std::max<int>(0, static_cast<int>(std::max<std::int64_t>(0, restarted_from)));
  int next_balance = balance.cost() ? first + balance.after : options.iters;
  int done_until = first;
  while (done_until < options.iters) {
    const int stop = std::min(next_balance, options.iters);
    solver->iterate_until(stop);
    done_until = stop;
    if (stop >= options.iters) break;
    next_balance = stop + balance.every;
    // Every task is done: the window holds the sweeps since the last repartition.
    const CostWindow window = costs.close_window();
    const CostSplit split = cost_balanced_split(
        MPI_COMM_WORLD, window, static_cast<std::size_t>(mesh->local_block_count()));
    // A move costs a solver's set-up and the messages: only for a predicted gain.
    if (!split.worth_moving(balance.gain)) continue;
    ++repartitions;
    const std::vector<std::int64_t>& counts = split.counts;
    session.runtime().set_cost_table(nullptr);
    auto next_mesh = std::make_unique<UniformMesh>(blocks, cells, options.time_tile, session.rank(),
                                                   session.size(), Periodicity{}, counts);
    auto next = std::make_unique<Solver>(session, options, *next_mesh, writer.get());
    next->setup();
    long long moved = next->continue_from(*solver, migration_tags);
    MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    blocks_moved += moved;
    solver = std::move(next);
    mesh = std::move(next_mesh);
    costs.reset(static_cast<std::size_t>(mesh->local_block_count()));
    session.runtime().set_cost_table(&costs);
  }
  double solve_s = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &solve_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  session.runtime().set_cost_table(nullptr);
  const CheckResult last = solver->final_check();
  const double checksum = solver->checksum();

  // Iterations this run did (a restarted run starts at the checkpoint's step).
  const std::int64_t done =
      std::max<std::int64_t>(0, options.iters - std::max<std::int64_t>(0, restarted_from));
  const double updates = static_cast<double>(product(n)) * static_cast<double>(done);
  const double updates_per_s = solve_s > 0 ? updates / solve_s : 0.0;
  const double bandwidth = updates_per_s * kBytesPerCellUpdate;
  session.say(
      "jacobi7: {} iterations on {} x {} x {} cells: residual {:.6e}, error {:.6e} vs "
      "the exact solution; {:.3f} s, {:.3e} cell updates/s, {:.2f} GB/s effective",
      options.iters, n.x, n.y, n.z, last.residual, last.error, solve_s, updates_per_s,
      bandwidth / 1e9);

  nlohmann::json history = nlohmann::json::array();
  for (const CheckResult& c : solver->history()) {
    history.push_back({{"iteration", c.iteration}, {"residual", c.residual}, {"error", c.error}});
  }
  nlohmann::json fields = {
      {"checksum", hex_bits(checksum)},
      {"checksum_value", checksum},
      {"iters", options.iters},
      {"residual", last.residual},
      {"error", last.error},
      {"history", history},
      {"cells", {n.x, n.y, n.z}},
      {"blocks", options.blocks},
      {"block_cells", options.block_cells},
      {"work", options.work},
      {"halo",
       {{"send_faces", options.halo.send_faces},
        {"max_comm_tasks", options.halo.max_comm_tasks},
        {"separate_buffers", options.halo.separate_buffers},
        {"copy_local_ghosts", options.halo.copy_local},
        {"fused_packing", options.fused_packing}}},
      {"wavefront_depth", options.wavefront_depth},
      {"time_tile", options.time_tile},
      {"priorities", session.options().priorities},
      {"solve_s", solve_s},
      {"cell_updates_per_s", updates_per_s},
      {"bytes_per_cell_update", kBytesPerCellUpdate},
      {"effective_bandwidth_gbs", bandwidth / 1e9},
      {"checkpoint", checkpoint_report(writer.get(), restored)},
      {"balance",
       {{"mode", balance.balance},
        {"repartitions", repartitions},
        {"blocks_moved", blocks_moved},
        {"local_blocks", mesh->local_block_count()}}},
  };
  session.finish(std::move(fields));
  return 0;
}

}  // namespace
}  // namespace tessera::jacobi7

int main(int argc, char** argv) {
  return tessera::run_guarded([&] { return tessera::jacobi7::run(argc, argv); });
}
