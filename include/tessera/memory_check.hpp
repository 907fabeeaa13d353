#pragma once
// The memory check every app runs before its large allocations: the bytes one rank will
// need, estimated from the options and the rank count, against what this node offers each
// rank (MemAvailable, capped by the cgroup memory limit, shared among the job's ranks on the
// node). An input too big for the machine is refused in well under a second with one line,
// instead of churning, swapping or dying of std::bad_alloc. Session::check_memory runs it.
//
//   tessera::MemoryEstimate need;
//   need.add("fields", fields * block_doubles * 8.0 * local_blocks);
//   need.add("message buffers", ...);
//   session.check_memory("--blocks/--block-cells", need);  // exits 2 on every rank if too big

#include <mpi.h>

#include <optional>
#include <string>
#include <string_view>

#include "tessera/runtime/memory_estimate.hpp"
#include "tessera/runtime/out_of_memory.hpp"

namespace tessera {

/// What the node offers each rank of the job.
struct NodeMemory {
  double available_bytes = 0;  ///< for the whole node (after the cgroup cap)
  int ranks_on_node = 1;       ///< ranks of the communicator sharing this node
  std::string limited_by;      ///< "MemAvailable" or "cgroup memory limit"
  double per_rank() const { return available_bytes / ranks_on_node; }
};

/// Available memory of this node and the ranks of `comm` on it (MPI_COMM_TYPE_SHARED).
/// Collective over `comm`.
NodeMemory node_memory(MPI_Comm comm);

/// MemAvailable in bytes from the text of /proc/meminfo; nullopt if absent.
std::optional<double> meminfo_available(std::string_view meminfo);
/// The tightest cgroup memory headroom (limit - usage) over this process's cgroup and its
/// ancestors, v1 or v2, with `root` standing for /sys/fs/cgroup and `self_cgroup` the text
/// of /proc/self/cgroup; nullopt when no limit is set.
std::optional<double> cgroup_headroom(const std::string& root, std::string_view self_cgroup);

/// The one-line verdict, or nullopt when `need` (bytes per rank) fits in `available`
/// (bytes per rank): "needs 1.4 TB per rank, 11.5 GB available per rank on this node".
std::optional<std::string> memory_shortfall(double need, double available);

}  // namespace tessera
