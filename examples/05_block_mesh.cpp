// 05_block_mesh: 2-D diffusion on a uniform block mesh. The mesh cuts the unit square into
// blocks dealt to the ranks; a HaloExchange fills each block's ghosts from its neighbours
// (pack, send, receive, unpack tasks). Same checksum bits under every --exec model.
#include <CLI/CLI.hpp>  // Session::cli() is a CLI11 parser: add options with its API
#include <utility>

#include "tessera/tessera.hpp"

using namespace tessera;

int run(int argc, char** argv) {
  Session session(argc, argv, "05_block_mesh", "2-D diffusion on a uniform block mesh");
  int blocks = 4, block_cells = 16, steps = 100;
  session.cli().add_option("--blocks", blocks, "blocks per axis")->check(CLI::Range(1, 64));
  session.cli().add_option("--block-cells", block_cells, "block side")->check(CLI::Range(1, 1024));
  session.cli().add_option("--steps", steps, "time steps")->check(CLI::NonNegativeNumber);
  session.start();
  Runtime& runtime = session.runtime();
  Exec& exec = session.exec();
  // A flat z axis makes the mesh 2-D. Each rank computes the same geometry, keeps its blocks.
  const UniformMesh mesh({blocks, blocks, 1}, {block_cells, block_cells, 1}, /*ghost=*/1,
                         session.rank(), session.size());
  // Two fields written alternately; ghosts outside the square stay 0 (the boundary).
  BlockField field_a(mesh, runtime, "u", 1), field_b(mesh, runtime, "u next", 1);
  // The plan: each ghost region's source (a copy or a message; faces do for 5 points).
  const HaloPlan plan(mesh, HaloOptions{.shape = HaloShape::faces});
  HaloExchange halo(plan, /*nvars=*/1, session.comm(), exec);  // owns buffers and tags
  // Initial condition: a hot square in the middle, written before any task exists.
  const BlockLayout& layout = field_a.layout();
  const int n = blocks * block_cells;
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
    const Int3 origin = mesh.cell_origin(mesh.local_block(b));
    for (int j = 0; j < block_cells; ++j)
      for (int i = 0; i < block_cells; ++i) {
        const int x = origin.x + i, y = origin.y + j;
        field_a.data(b)[layout.index(0, i, j, 0)] =
            (x >= n / 4 && x < 3 * n / 4 && y >= n / 4 && y < 3 * n / 4) ? 1.0 : 0.0;
      }
  }
  BlockField* u = &field_a;
  BlockField* v = &field_b;
  for (int step = 0; step < steps; ++step) {
    halo.exchange(*u);  // submits the halo tasks; their phases end as the model wants
    for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
      // Interior and ghosts are two handles: halo tasks that read the interior never wait
      // for ghost fills. Blocks next to another rank (skeleton) go first: others wait.
      const Priority priority = mesh.local_block(b).is_skeleton(HaloShape::faces)
                                    ? exec.skeleton_priority()
                                    : Priority::normal;
      runtime.submit(
          "diffuse", {read(u->interior(b)), read(u->ghosts(b)), write(v->interior(b))},
          [&layout, in = u->data(b), out = v->data(b), block_cells] {
            const std::ptrdiff_t sy = layout.stride_y();
            for (int j = 0; j < block_cells; ++j)
              for (int i = 0; i < block_cells; ++i) {
                const std::ptrdiff_t c = layout.index(0, i, j, 0);
                out[c] =
                    in[c] + 0.2 * (in[c - 1] + in[c + 1] + in[c - sy] + in[c + sy] - 4 * in[c]);
              }
          },
          priority);
    }
    exec.end_phase();  // forkjoin's barrier
    std::swap(u, v);
  }
  // Checksum: the exact sum of every cell over all ranks, the same bits for any split.
  runtime.wait_all();
  ExactSum sum;
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b)
    for (int j = 0; j < block_cells; ++j)
      for (int i = 0; i < block_cells; ++i) sum.add(u->data(b)[layout.index(0, i, j, 0)]);
  const Handle h = runtime.create_handle("checksum");
  session.comm().iallreduce_sum(h, &sum);
  runtime.wait_for(h);
  session.say("05_block_mesh: {} x {} cells in {} x {} blocks, {} steps: heat {:.12f}", n, n,
              blocks, blocks, steps, sum.value() / (double(n) * n));
  session.finish({{"checksum", hex_bits(sum.value())}});
  return 0;
}

int main(int argc, char** argv) {
  return run_guarded([&] { return run(argc, argv); });
}
