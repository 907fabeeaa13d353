// Set-up cost of one rank's share of an app's mesh structures, in a fresh process: for a
// BX x BY x BZ block mesh (blocks of 16^3 cells) over N ranks, builds rank R's
//   jacobi7: UniformMesh and its face HaloPlan;
//   mg:      every level of a periodic multigrid hierarchy (as many levels as halve the
//            cells evenly), each with its UniformMesh and full HaloPlan, and the block
//            pairs between neighbouring levels (local_level_pairs, what LevelTransfer uses);
//   poisson: the same on a non-periodic hierarchy with a face and a full HaloPlan per level.
// Prints one JSON line with the wall time and the growth of the peak resident set. The
// communicating parts (tags, handles, buffers) need MPI and are left out. Driven by
// bench/setup-scaling, which runs it for global meshes of 10^3..10^9 blocks.
// Usage: bench_setup_scaling BX BY BZ RANKS RANK [jacobi7|mg|poisson]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/mesh/halo_plan.hpp"
#include "tessera/mesh/level_hierarchy.hpp"
#include "tessera/mesh/level_transfer.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace {

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

constexpr int kBlockCells = 16;

// What one rank builds of an app's mesh, kept alive until the measurement ends.
struct Share {
  std::vector<std::unique_ptr<tessera::UniformMesh>> meshes;
  std::vector<std::unique_ptr<tessera::HaloPlan>> plans;
  std::size_t messages = 0;
  std::size_t pairs = 0;
  int local_blocks = 0;  // on the finest level
};

void add_plan(Share& share, const tessera::UniformMesh& mesh, tessera::HaloShape shape) {
  tessera::HaloOptions options;
  options.shape = shape;
  share.plans.push_back(std::make_unique<tessera::HaloPlan>(mesh, options));
  share.messages +=
      share.plans.back()->sends().messages.size() + share.plans.back()->receives().messages.size();
}

Share build_share(const std::string& app, tessera::Int3 blocks, int ranks, int rank) {
  Share share;
  if (app == "jacobi7") {
    share.meshes.push_back(std::make_unique<tessera::UniformMesh>(
        blocks, tessera::Int3{kBlockCells, kBlockCells, kBlockCells}, 1, rank, ranks));
    add_plan(share, *share.meshes.back(), tessera::HaloShape::faces);
  } else {
    const bool mg = app == "mg";
    tessera::HierarchySpec spec;
    spec.cells = {blocks.x * kBlockCells, blocks.y * kBlockCells, blocks.z * kBlockCells};
    spec.block_cells = {kBlockCells, kBlockCells, kBlockCells};
    spec.periodic = mg ? tessera::Periodicity::all() : tessera::Periodicity{};
    // As many levels as halve evenly, down to 2 cells per axis (as the apps' defaults).
    for (spec.levels = 1;; ++spec.levels) {
      tessera::HierarchySpec deeper = spec;
      deeper.levels = spec.levels + 1;
      try {
        if (tessera::level_shapes(deeper).back().cells().x < 2) break;
      } catch (const std::invalid_argument&) {
        break;
      }
    }
    for (const tessera::LevelShape& shape : tessera::level_shapes(spec)) {
      share.meshes.push_back(std::make_unique<tessera::UniformMesh>(
          shape.blocks, shape.block_cells, spec.ghost, rank, ranks, spec.periodic));
      if (!mg) add_plan(share, *share.meshes.back(), tessera::HaloShape::faces);
      add_plan(share, *share.meshes.back(), tessera::HaloShape::full);
    }
    for (std::size_t l = 0; l + 1 < share.meshes.size(); ++l) {
      share.pairs += tessera::local_level_pairs(*share.meshes[l], *share.meshes[l + 1]).size();
    }
  }
  share.local_blocks = share.meshes.front()->local_block_count();
  return share;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string app = argc == 7 ? argv[6] : "jacobi7";
  if ((argc != 6 && argc != 7) || (app != "jacobi7" && app != "mg" && app != "poisson")) {
    std::fprintf(stderr, "usage: %s BX BY BZ RANKS RANK [jacobi7|mg|poisson]\n", argv[0]);
    return 2;
  }
  const tessera::Int3 blocks{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  const int ranks = std::atoi(argv[4]);
  const int rank = std::atoi(argv[5]);
  const long rss_before = peak_rss_kb();
  const auto start = std::chrono::steady_clock::now();
  const Share share = build_share(app, blocks, ranks, rank);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long rss_growth = peak_rss_kb() - rss_before;
  std::printf(
      "{\"app\": \"%s\", \"blocks\": [%d, %d, %d], \"global_blocks\": %lld, \"ranks\": %d, "
      "\"rank\": %d, \"local_blocks\": %d, \"levels\": %zu, \"messages\": %zu, \"pairs\": %zu, "
      "\"setup_s\": %.9f, \"peak_rss_growth_kb\": %ld, \"peak_rss_kb\": %ld}\n",
      app.c_str(), blocks.x, blocks.y, blocks.z,
      static_cast<long long>(share.meshes.front()->global_block_count()), ranks, rank,
      share.local_blocks, share.meshes.size(), share.messages, share.pairs, seconds, rss_growth,
      peak_rss_kb());
  return 0;
}
