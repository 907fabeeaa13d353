#pragma once
// Flux correction at coarse-fine faces of an adaptive mesh (layer `amr`), as tasks.
//
// A finite-volume update U -= dt/dx (F(+face) - F(-face)) on blocks of different levels
// conserves U only if the coarse block's flux through a face with finer neighbours equals
// the fine fluxes through that face. The kernel that updates a block stores the fluxes it
// used on its six faces in the block's flux register (FluxRegister layout); then, per
// coarse block with finer face neighbours, one task replaces its face flux by the mean of
// the 2x2 fine fluxes each coarse face cell covers (flux per unit area: the area-weighted
// sum) and corrects the adjacent cells:
//   U += -s dt / dx_axis (F_fine - F_coarse),  s = +1 on a block's upper face, -1 on its lower.
// Fine blocks pack their 2x2 means (one pair of functions on-rank and in messages, so the
// result does not depend on where blocks live); messages go one per neighbour rank.
// No subcycling: every level advances with the same dt.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tessera/amr/block_store.hpp"
#include "tessera/amr/cell_transfer.hpp"
#include "tessera/amr/forest.hpp"
#include "tessera/amr/halo.hpp"
#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"

namespace tessera {

/// Layout of a block's flux register: the six faces one after the other; face f holds
/// `vars` x cells[t0] x cells[t1] fluxes ([var][u][w], t0 < t1 the tangential axes of f).
struct FluxRegister {
  FluxRegister() = default;
  FluxRegister(const BlockShape& shape, int vars);
  /// Offset of face f's flux of variable v at tangential cell (u, w).
  std::size_t index(int face, int v, int u, int w) const {
    return offset[static_cast<std::size_t>(face)] +
           (static_cast<std::size_t>(v) * static_cast<std::size_t>(n0[face / 2]) +
            static_cast<std::size_t>(u)) *
               static_cast<std::size_t>(n1[face / 2]) +
           static_cast<std::size_t>(w);
  }
  std::array<std::size_t, kBlockFaces + 1> offset{};  ///< offset[6] = doubles per block
  std::array<int, 3> n0{}, n1{};                      ///< tangential cells per face axis
  /// Fine face cells per coarse face cell along t0, t1 per face axis: 2, or 1 on a flat axis.
  std::array<int, 3> f0{}, f1{};
};

/// The correction plan of one mesh. Build after every change of the forest.
class FluxCorrection {
 public:
  /// `slots[i]` is the BlockStore slot of local block i; `vars` variables starting at each
  /// corrected group's first are corrected. `tags` (tags_needed(), same on every rank).
  /// With a `transfer` (CellTransfer, outliving the plan) a face cell's flux is `vars`
  /// values (transfer->face_flux_values()): the coarse flux is the transfer's from the fine
  /// faces (add_fine_face_flux) instead of the means, and the transfer corrects each whole
  /// coarse cell (correct_cell) instead of U -= s c (F_fine - F_coarse).
  /// Main thread only; not collective.
  FluxCorrection(const Forest& forest, BlockStore& store, std::span<const std::int32_t> slots,
                 Comm& comm, const TagSpace& tags, HandlePool& handles, int vars,
                 const CellTransfer* transfer = nullptr);
  ~FluxCorrection();
  FluxCorrection(const FluxCorrection&) = delete;
  FluxCorrection& operator=(const FluxCorrection&) = delete;

  static int tags_needed() { return 2; }

  const FluxRegister& layout() const { return layout_; }
  /// Flux register of local block i (FluxRegister layout), or nullptr when the block has
  /// no face with a level jump (its fluxes need not be stored). Stable while the plan lives.
  double* fluxes(std::int32_t i) { return registers_[static_cast<std::size_t>(i)].data(); }
  /// The handle a kernel writing fluxes(i) declares (valid when fluxes(i) != nullptr).
  Handle fluxes_handle(std::int32_t i) const {
    return register_handles_[static_cast<std::size_t>(i)];
  }

  /// Submits the correction of variable group g: the coefficient of a level-L block along
  /// axis a is factor * *step / (dx0[a] * 2^-L), with *step read when the task runs (a zero
  /// step changes nothing: the tasks return at once).
  /// `tag` in 0..tags_needed()-1 separates exchanges that may overlap. Skeleton blocks and
  /// messages get exec.skeleton_priority(). The plan must outlive the tasks.
  void submit(int g, int tag, const double* step, double factor, std::array<double, 3> dx0,
              Exec& exec);

 private:
  struct Link;
  struct Message;
  struct Coarse;

  BlockStore& store_;
  Comm& comm_;
  TagSpace tags_;
  int vars_;
  const CellTransfer* transfer_;
  FluxRegister layout_;
  std::vector<std::vector<double>> registers_;
  std::vector<Handle> register_handles_;
  std::vector<Message> sends_, receives_;
  std::vector<Coarse> coarse_;
  std::vector<std::uint8_t> skeleton_;
};

}  // namespace tessera
