// jacobi7's Solver: construction (fields, halo exchanges, face sources, handles), the
// computation of f, and the iteration loop that submits exchanges, sweeps, checks and
// checkpoints with a bounded lookahead.

#include "solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "jacobi_kernels.hpp"

namespace tessera::jacobi7 {
namespace {

// u, v and f keep no ghost cells when the sweeps read every face elsewhere: local faces in
// place, remote ones in the receive sections (fused on every axis), the boundary's zeros
// from one shared array. Then a sweep streams only interiors (a 32^3 block with its ghost
// layer and row padding is 1.41x the interior's lines). The kernels index the three
// fields with one layout, so they share the choice.
GhostCells stencil_ghost_cells(const Options& o) {
  return fused_axes(o) == 7 && !halo_options(o).copy_local ? GhostCells::none : GhostCells::stored;
}

// A sweep's output is next read one iteration later, after every other local block has
// been swept: it stays in cache only if this rank's u, v and f all fit in the last-level
// cache; otherwise streaming stores save the read-for-ownership of every output line.
OutputStores sweep_output_stores(const BlockField& u) {
  constexpr double kLastLevelCacheBytes = 32 << 20;  // AMD EPYC's L3 per CCD
  const double field_bytes =
      static_cast<double>(u.layout().size()) * sizeof(double) * u.block_count();
  return 3 * field_bytes > kLastLevelCacheBytes ? OutputStores::streaming : OutputStores::cached;
}

}  // namespace

// Iterations the submission may run ahead of the sweeps: two bands of a wavefront, so that
// the next band is queued before the current one drains, and at least 4.
int lookahead_iterations(const Options& o) {
  return std::max(4, 2 * o.wavefront_depth);
}

Solver::Solver(Session& session, const Options& options, const UniformMesh& mesh,
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
      output_stores_(options.wavefront_depth > 1 ? OutputStores::cached : sweep_output_stores(u_)),
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
    check.residual_handle = runtime.create_reduction_handle("residual", &check.residual, add_exact);
    check.error_handle = runtime.create_reduction_handle("error", &check.error, add_exact);
  }
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    for (int w = 0; w < lookahead_; ++w) {
      sweep_done_.push_back(runtime.create_handle(fmt::format("sweep-done[{}:{}]", b, w)));
    }
  }
}

void Solver::setup() {
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

void Solver::iterate_until(int stop) {
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

// Exchanges field's halo. With fused packing the sweeps read the fused faces from the
// receive buffer (no unpack tasks); with `all` and `x` the last sweep writing `field` also
// filled their send sections (no pack tasks), except before any sweep wrote it (the first
// iteration, a restart), when pack tasks fill them.
void Solver::exchange(BlockField& field) {
  if (fused_ == 0) {
    halo_.exchange(field);
    return;
  }
  const bool swept = &field == &u_ ? u_swept_ : v_swept_;
  exchange_of(field).exchange(field, HaloFusion{swept ? fused_packs_ : std::uint8_t{0}, fused_});
}

// The first 64-byte aligned double of boundary_.
const double* Solver::boundary_zeros() const {
  const auto address = reinterpret_cast<std::uintptr_t>(boundary_.data());
  const std::uintptr_t line = BlockLayout::kRowAlignment * sizeof(double);
  return boundary_.data() + (line - address % line) % line / sizeof(double);
}

// Keeps at most lookahead_ iterations of tasks in flight (memory stays bounded for any
// --iters); sweeps of one block are ordered anyway, so this adds no dependency.
void Solver::wait_for_sweeps(int tile) {
  for (LocalBlockIndex b = 0; b < mesh_.local_block_count(); ++b) {
    session_.runtime().wait_for(sweep_done_[b * lookahead_ + tile % lookahead_]);
  }
}

}  // namespace tessera::jacobi7
