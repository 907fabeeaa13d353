#pragma once
// The ghost exchange as a kernel author calls it on either mesh: an object bound to the data
// whose ghosts it fills, with one call, submit(). FieldGhostExchange binds a HaloExchange to
// a BlockField (uniform mesh); AmrGhostExchange (amr/mesh.hpp) binds an AmrMesh to one of
// its variable groups. Code that takes a GhostExchange& and BlockViews runs on both.

#include "tessera/mesh/block_field.hpp"
#include "tessera/mesh/halo_exchange.hpp"

namespace tessera {

/// Fills the ghost cells of the data it is bound to from the neighbouring blocks'
/// interiors (and, on an adaptive mesh, restriction or prolongation across level jumps and
/// the boundary rule at domain edges). Main thread only.
class GhostExchange {
 public:
  virtual ~GhostExchange() = default;
  /// Submits the exchange's tasks; tasks submitted afterwards that read the ghost
  /// handles run after them. Under bsp and forkjoin they have run on return.
  virtual void submit() = 0;
};

/// HaloExchange::exchange(field) behind GhostExchange. The exchange and the field must
/// outlive it.
class FieldGhostExchange final : public GhostExchange {
 public:
  FieldGhostExchange(HaloExchange& exchange, BlockField& field)
      : exchange_(exchange), field_(field) {}
  void submit() override { exchange_.exchange(field_); }

 private:
  HaloExchange& exchange_;
  BlockField& field_;
};

}  // namespace tessera
