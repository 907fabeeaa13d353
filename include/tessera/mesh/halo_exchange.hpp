#pragma once
// Runs a HaloPlan: the pack, send, receive, unpack and local-copy tasks that fill a
// field's ghost cells, under any execution model.

#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/exec/exec_model.hpp"
#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_plan.hpp"

namespace tessera {

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
  /// The on-rank part of exchange(): only the local copies, nothing sent or received
  /// (ghosts facing other ranks keep their values). For measuring compute without
  /// communication. Same requirements as exchange(). A field passed to either must not
  /// move while its tasks (or a recorded graph replaying them) may run.
  void exchange_local(BlockField& field);

  const HaloPlan& plan() const { return plan_; }
  /// Messages this rank sends per exchange.
  std::size_t messages_per_exchange() const { return plan_.sends().messages.size(); }

 private:
  void check_field(const BlockField& field) const;
  void submit_packs(BlockField& field, int group);
  void submit_messages(int group);
  void submit_copies(BlockField& field);
  void submit_block_copies(BlockField& field);
  void submit_unpacks(BlockField& field, int group);
  /// Accesses of a task writing the sections of `side`: each section plus its overlaps.
  void collect_writes(const HaloSide& side, const std::vector<Handle>& handles, int first,
                      int count);

  const HaloPlan& plan_;
  int nvars_;
  Comm& comm_;
  Exec& exec_;
  TagSpace tags_;
  std::vector<double> send_buffer_;
  std::vector<double> receive_buffer_;
  std::vector<Handle> send_handles_;
  std::vector<Handle> receive_handles_;
  std::vector<Access> accesses_;
};

}  // namespace tessera
