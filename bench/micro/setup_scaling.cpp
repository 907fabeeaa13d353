// Set-up cost of one rank's share of a uniform mesh: builds rank R's UniformMesh and its
// face HaloPlan for a BX x BY x BZ block mesh over N ranks, in a fresh process, and prints
// one JSON line with the wall time and the growth of the peak resident set. Driven by
// bench/setup-scaling, which runs it for global meshes of 10^3..10^9 blocks.
// Usage: bench_setup_scaling BX BY BZ RANKS RANK
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace {

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s BX BY BZ RANKS RANK\n", argv[0]);
    return 2;
  }
  const tessera::Int3 blocks{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  const int ranks = std::atoi(argv[4]);
  const int rank = std::atoi(argv[5]);
  const long rss_before = peak_rss_kb();
  const auto start = std::chrono::steady_clock::now();
  const tessera::UniformMesh mesh(blocks, {16, 16, 16}, 1, rank, ranks);
  const tessera::HaloPlan plan(mesh, tessera::HaloOptions{});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long rss_growth = peak_rss_kb() - rss_before;
  std::printf(
      "{\"blocks\": [%d, %d, %d], \"global_blocks\": %lld, \"ranks\": %d, \"rank\": %d, "
      "\"local_blocks\": %d, \"messages\": %zu, \"setup_s\": %.9f, \"peak_rss_growth_kb\": %ld, "
      "\"peak_rss_kb\": %ld}\n",
      blocks.x, blocks.y, blocks.z, static_cast<long long>(mesh.global_block_count()), ranks, rank,
      mesh.local_block_count(), plan.sends().messages.size() + plan.receives().messages.size(),
      seconds, rss_growth, peak_rss_kb());
  return 0;
}
