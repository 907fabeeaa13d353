#include "tessera/driver/mesh_checkpoint.hpp"

#include <algorithm>
#include <vector>

namespace tessera {

namespace {

int group_range_vars(const BlockShape& s, int first_group, int groups) {
  int vars = 0;
  for (int g = first_group; g < first_group + groups; ++g) vars += s.group_vars(g);
  return vars;
}

}  // namespace

CheckpointBlocks checkpoint_blocks(const Forest& forest) {
  CheckpointBlocks blocks;
  blocks.global_count = forest.global_count();
  blocks.first = forest.global_offset();
  for (std::int32_t b = 0; b < forest.local_count(); ++b) {
    const BlockPlace& p = forest.local(b);
    blocks.places.push_back({p.level, p.origin[0], p.origin[1], p.origin[2]});
  }
  return blocks;
}

CheckpointField checkpoint_cells(AmrMesh& mesh, const std::string& name, int first_group,
                                 int groups) {
  AmrMesh* m = &mesh;
  const BlockShape& s = mesh.shape();
  const int first_var = s.group_first(first_group), vars = group_range_vars(s, first_group, groups);
  CheckpointField f;
  f.name = name;
  f.values_per_block = s.interior_cells() * static_cast<std::size_t>(vars);
  f.reads = [m, first_group, groups](std::int32_t b, std::vector<Handle>& out) {
    for (int g = first_group; g < first_group + groups; ++g) out.push_back(m->interior(b, g));
  };
  // The mesh only changes after every task is done, so block b is still block b.
  f.pack = [m, first_var, vars](std::int32_t b, double* out) {
    const BlockShape& s = m->shape();
    const BlockLayout& l = m->layout();
    const double* block = m->data(b);
    for (int v = first_var; v < first_var + vars; ++v)
      for (int i = 0; i < s.cells[0]; ++i)
        for (int j = 0; j < s.cells[1]; ++j)
          for (int k = 0; k < s.cells[2]; ++k) *out++ = block[l.index(v, i, j, k)];
  };
  return f;
}

void restart_leaves(CheckpointReader& reader, int ranks, AmrMeshOptions& mesh_options) {
  for (const CheckpointPlace& p : reader.read_places())
    mesh_options.leaves.push_back({static_cast<int>(p[0]), {p[1], p[2], p[3]}});
  if (static_cast<int>(reader.written_partition().size()) == ranks + 1)
    mesh_options.partition = reader.written_partition();
}

void read_checkpoint_cells(CheckpointReader& reader, AmrMesh& mesh, const std::string& name,
                           int first_group, int groups) {
  const BlockShape& s = mesh.shape();
  const int first_var = s.group_first(first_group), vars = group_range_vars(s, first_group, groups);
  reader.read_field(
      name, mesh.forest().global_offset(), mesh.local_block_count(),
      s.interior_cells() * static_cast<std::size_t>(vars), [&](std::int64_t b, const double* in) {
        const BlockLayout& l = mesh.layout();
        double* block = mesh.data(static_cast<LocalBlockIndex>(b));
        for (int v = first_var; v < first_var + vars; ++v)
          for (int i = 0; i < s.cells[0]; ++i)
            for (int j = 0; j < s.cells[1]; ++j)
              for (int k = 0; k < s.cells[2]; ++k) block[l.index(v, i, j, k)] = *in++;
      });
}

}  // namespace tessera
