#include "session/core_binding.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "tessera/base/check_mpi.hpp"

namespace tessera::detail {

CoreBinding node_core_binding(int threads_per_rank, MPI_Comm world) {
  MPI_Comm node = MPI_COMM_NULL;
  TESSERA_MPI_CHECK(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CoreBinding binding;
  TESSERA_MPI_CHECK(MPI_Comm_size(node, &binding.ranks_on_node));
  binding.threads_on_node = binding.ranks_on_node * threads_per_rank;

  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
    // Unknown binding: assume every online core is allowed rather than warn wrongly.
    for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &mine);
  }
  std::vector<cpu_set_t> masks(static_cast<std::size_t>(binding.ranks_on_node));
  TESSERA_MPI_CHECK(
      MPI_Allgather(&mine, sizeof mine, MPI_BYTE, masks.data(), sizeof mine, MPI_BYTE, node));
  TESSERA_MPI_CHECK(MPI_Comm_free(&node));

  binding.cores_online = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  cpu_set_t all;
  CPU_ZERO(&all);
  for (cpu_set_t& mask : masks) {
    CPU_OR(&all, &all, &mask);
    if (threads_per_rank > CPU_COUNT(&mask)) binding.rank_overbound = true;
  }
  binding.cores_allowed = std::min(CPU_COUNT(&all), binding.cores_online);
  return binding;
}

std::string core_binding_warning(const CoreBinding& binding, int threads_per_rank,
                                 const std::string& app) {
  if (!binding.sharing_by_binding()) return {};
  return fmt::format(
      "{}: warning: {} rank(s) x {} thread(s) on this node are bound to fewer cores than "
      "they have threads ({} core(s) online), so threads share a core; run mpirun with "
      "--bind-to none (or --map-by slot:PE={})",
      app, binding.ranks_on_node, threads_per_rank, binding.cores_online, threads_per_rank);
}

}  // namespace tessera::detail
