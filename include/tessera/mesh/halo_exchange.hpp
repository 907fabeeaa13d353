#pragma once
// Runs a HaloPlan: the pack, send, receive, unpack and local-copy tasks that fill a
// field's ghost cells, under any execution model.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_plan.hpp"

namespace tessera {

/// Halo sections that the caller's own kernels fill or read in place of the exchange's
/// pack and unpack tasks ("fused packing"), as masks of face axes: bit a (x = 1, y = 2,
/// z = 4) covers the faces across axis a. Needs a plan of HaloShape::faces with separate
/// buffers (a section's memory then belongs to it alone).
struct HaloFusion {
  /// Send sections written by the caller's tasks (declaring write of send_handle(s))
  /// before the exchange is submitted: no pack tasks for them.
  std::uint8_t packed = 0;
  /// Receive sections read in place by the caller's tasks (declaring read of
  /// receive_handle(s)): no unpack tasks, the block's ghost cells keep their values.
  std::uint8_t unpacked = 0;
};

/// Buffers, section handles and MPI tags for exchanging fields of `nvars` variables along
/// one plan. One handle per buffer section: a pack writes its section, a send reads the
/// sections of its message, a receive writes them, an unpack reads its section. With
/// shared buffers a writer also lists the overlapping sections of other groups, so a
/// direction reuses memory only after the previous direction is done with it.
class HaloExchange {
 public:
  /// Reserves plan.tag_count() tags on `comm` (collective in order: build the exchanges
  /// of a program in the same order on every rank). The plan, comm and exec must outlive
  /// it. Main thread only. Throws std::invalid_argument if a message would exceed INT_MAX
  /// doubles.
  HaloExchange(const HaloPlan& plan, int nvars, Comm& comm, Exec& exec,
               const std::string& name = "halo");

  /// Submits the tasks that fill every ghost region of `field` facing a block (local or
  /// remote) with that block's interior values, group by group, each group as the phases
  /// pack | send+receive+local copies | unpack (exec.end_phase() after each, so forkjoin
  /// gets its barriers and bsp posts every send and receive of a group before any unpack).
  /// Skeleton work gets exec.skeleton_priority(). `field` must live on the plan's mesh
  /// with this exchange's nvars (std::invalid_argument otherwise). Main thread only;
  /// returns once the tasks are submitted (under bsp and forkjoin: once they ran).
  void exchange(BlockField& field);
  /// exchange() with the sections `fusion` names left to the caller's tasks: a send
  /// leaves once the tasks writing its sections (submitted before) are done, and a
  /// receive overwrites a section only after the tasks reading it (submitted before) ran.
  /// std::invalid_argument if `fusion` names an axis and the plan's shape is not faces or
  /// its buffers are shared, and for a field without ghost cells (GhostCells::none) if the
  /// plan copies local ghosts or an axis with receive sections is not in fusion.unpacked.
  void exchange(BlockField& field, HaloFusion fusion);
  /// The on-rank part of exchange(): only the local copies, nothing sent or received
  /// (ghosts facing other ranks keep their values). For measuring compute without
  /// communication. Same requirements as exchange() (a field without ghost cells: no
  /// copies in the plan). A field passed to either must not
  /// move while its tasks (or a recorded graph replaying them) may run.
  void exchange_local(BlockField& field);

  const HaloPlan& plan() const { return plan_; }
  /// Messages this rank sends per exchange.
  std::size_t messages_per_exchange() const { return plan_.sends().messages.size(); }
  /// Section s of plan().sends() / plan().receives() in the buffers (nvars x cells
  /// doubles in pack_region order, 64-byte aligned when the section's offset is a
  /// multiple of 8) and the handle a task writing or reading it declares.
  double* send_data(int s) {
    return send_buffer_.get() + plan_.sends().sections[s].offset * nvars_;
  }
  Handle send_handle(int s) const { return send_handles_[s]; }
  const double* receive_data(int s) const {
    return receive_buffer_.get() + plan_.receives().sections[s].offset * nvars_;
  }
  Handle receive_handle(int s) const { return receive_handles_[s]; }

 private:
  /// `field` lives on the plan's mesh with nvars_ variables; one without ghost cells gets
  /// no local copies and has every receive section's unpack fused (axes in `unpacked`).
  void check_field(const BlockField& field, std::uint8_t unpacked) const;
  void submit_packs(BlockField& field, int group, std::uint8_t skipped_axes);
  void submit_messages(int group);
  void submit_copies(BlockField& field);
  void submit_block_copies(BlockField& field);
  /// A staged plan's local copies of stage `group`, one task per target block.
  void submit_staged_copies(BlockField& field, int group);
  void submit_unpacks(BlockField& field, int group, std::uint8_t skipped_axes);
  /// Accesses of a task writing the sections of `side`: each section plus its overlaps.
  void collect_writes(const HaloSide& side, const std::vector<Handle>& handles, int first,
                      int count);

  const HaloPlan& plan_;
  int nvars_;
  Comm& comm_;
  Exec& exec_;
  TagSpace tags_;
  struct FreeDeleter {  // buffers come from std::aligned_alloc: rows read in place by
    void operator()(double* p) const { std::free(p); }  // vector loads start on a line
  };
  std::unique_ptr<double[], FreeDeleter> send_buffer_;
  std::unique_ptr<double[], FreeDeleter> receive_buffer_;
  std::vector<Handle> send_handles_;
  std::vector<Handle> receive_handles_;
  std::vector<Access> accesses_;
};

}  // namespace tessera
