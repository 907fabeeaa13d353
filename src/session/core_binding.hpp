#pragma once
// How the threads of this job's ranks on one node map onto the cores their CPU binding
// allows. OpenMPI binds each rank to one core by default for up to two ranks, so
// `--threads 2` then runs both threads on one core: no faster than one thread, and much
// slower for short tasks. Nothing else tells the user, so the session warns.

#include <mpi.h>

#include <string>

namespace tessera::detail {

/// What one node's ranks may run on.
struct CoreBinding {
  int ranks_on_node = 1;        ///< ranks of the job sharing this node
  int threads_on_node = 1;      ///< ranks_on_node x threads per rank
  int cores_allowed = 1;        ///< cores in the union of the node's ranks' affinity masks
  int cores_online = 1;         ///< cores the node has online
  bool rank_overbound = false;  ///< some rank has more threads than cores in its mask
  /// Threads share cores only because of binding: the node has enough cores for all
  /// threads, but the masks allow fewer (or a rank's own mask is too small).
  bool sharing_by_binding() const {
    return threads_on_node <= cores_online && (rank_overbound || threads_on_node > cores_allowed);
  }
};

/// Gathers the affinity masks of the ranks on this rank's node (collective over `world`).
CoreBinding node_core_binding(int threads_per_rank, MPI_Comm world);

/// The one-line warning for a binding that makes threads share cores, naming the mpirun
/// options that fix it; empty when the binding is fine.
std::string core_binding_warning(const CoreBinding& binding, int threads_per_rank,
                                 const std::string& app);

}  // namespace tessera::detail
