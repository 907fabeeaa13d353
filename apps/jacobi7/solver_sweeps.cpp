// jacobi7's Solver, the sweeps: where each block's stencil reads beyond its faces (fused
// halo sections), what its tasks access, and the submission of one sweep task per block
// and iteration or, with --time-tile, one tile task per block and tile.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "jacobi_kernels.hpp"
#include "solver.hpp"

namespace tessera::jacobi7 {

// Per local block and face: the send and receive sections (the same indices in u's and
// v's exchanges) of its fused faces towards other ranks, or -1.
void Solver::find_fused_sections() {
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
void Solver::add_fused_faces(FaceSources& faces, HaloExchange& halo, LocalBlockIndex b) const {
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
std::uint8_t Solver::sweep_variant(LocalBlockIndex b) const {
  int variant = 0;
  for (int f = 0; f < 6; ++f)
    if (fused_receive_[b][f] >= 0) variant += f < 2 ? 1 : f < 4 ? 3 : 9;
  if (variant > 0 && fused_packs_ == 0) variant += 27;
  return static_cast<std::uint8_t>(variant);
}

// Starts accesses_ with what a stencil on block b of u reads: its interior and ghosts,
// the interiors of the local neighbours it reads in place, and f's interior.
void Solver::collect_stencil_reads(const BlockField& u, LocalBlockIndex b) {
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
const PlanePipeline& Solver::pipeline_for(LocalBlockIndex b, int depth) {
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
Priority Solver::block_priority(const MeshBlock& block, HaloShape shape) const {
  return block.is_skeleton(shape) ? session_.exec().skeleton_priority() : Priority::normal;
}

// One task per block running iterations it .. it + depth - 1 (tile number `tile`) from u's
// grown block (interior and ghosts) and f's into v's interior.
void Solver::submit_tiles(int it, int tile, int depth) {
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

void Solver::submit_sweeps(int it, int tile) {
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

}  // namespace tessera::jacobi7
