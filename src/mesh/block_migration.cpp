#include "tessera/mesh/block_migration.hpp"

#include <algorithm>
#include <stdexcept>

#include "tessera/runtime/runtime.hpp"

namespace tessera {

BlockMigration::BlockMigration(Comm& comm, const BlockField& from, BlockField& to,
                               const TagSpace& tags) {
  const UniformMesh& old_mesh = from.mesh();
  const UniformMesh& new_mesh = to.mesh();
  if (old_mesh.blocks() != new_mesh.blocks() || old_mesh.block_cells() != new_mesh.block_cells() ||
      old_mesh.ranks() != new_mesh.ranks() || old_mesh.rank() != new_mesh.rank() ||
      from.nvars() != to.nvars() || from.stores_ghosts() != to.stores_ghosts()) {
    throw std::invalid_argument("BlockMigration: the fields' meshes or layouts differ");
  }
  Runtime& runtime = comm.runtime();
  const BlockLayout& layout = from.layout();
  const Box interior = layout.interior();
  const std::size_t block_values =
      static_cast<std::size_t>(interior.cells()) * static_cast<std::size_t>(layout.nvars());
  const int me = old_mesh.rank();
  const std::int64_t old_first = old_mesh.range_begin(me), old_end = old_mesh.range_begin(me + 1);
  const std::int64_t new_first = new_mesh.range_begin(me), new_end = new_mesh.range_begin(me + 1);
  const TaskAttributes comm_attr = Comm::comm_attributes(TaskAttributes(Priority::normal));
  std::vector<Access> accesses;
  // Sends first: under bsp every task runs inline, and a receive waits for its message.
  for (int peer = 0; peer < old_mesh.ranks(); ++peer) {
    if (peer == me) continue;
    const std::int64_t lo = std::max(old_first, new_mesh.range_begin(peer));
    const std::int64_t hi = std::min(old_end, new_mesh.range_begin(peer + 1));
    if (lo >= hi) continue;
    auto& buffer = buffers_.emplace_back(block_values * static_cast<std::size_t>(hi - lo));
    const Handle h = runtime.create_handle("migrate.buffer");
    accesses.assign({write(h)});
    for (std::int64_t p = lo; p < hi; ++p)
      accesses.push_back(read(from.interior(static_cast<LocalBlockIndex>(p - old_first))));
    runtime.submit("migrate_pack", std::span<const Access>(accesses),
                   [&from, &layout, interior, out = buffer.data(), block_values,
                    first = static_cast<LocalBlockIndex>(lo - old_first), count = hi - lo] {
                     for (std::int64_t b = 0; b < count; ++b)
                       pack_region(layout, from.data(first + static_cast<LocalBlockIndex>(b)),
                                   interior, out + static_cast<std::size_t>(b) * block_values);
                   });
    comm.isend(h, buffer.data(), buffer.size() * sizeof(double), peer, tags.tag(0), comm_attr,
               "migrate_send");
    sent_ += hi - lo;
  }
  // Blocks that stay: one copy task each.
  for (std::int64_t p = std::max(old_first, new_first); p < std::min(old_end, new_end); ++p) {
    const auto ob = static_cast<LocalBlockIndex>(p - old_first);
    const auto nb = static_cast<LocalBlockIndex>(p - new_first);
    runtime.submit("migrate_copy", {read(from.interior(ob)), write(to.interior(nb))},
                   [&layout, interior, in = from.data(ob), out = to.data(nb)] {
                     copy_region(layout, in, interior, out, interior);
                   });
  }
  for (int peer = 0; peer < old_mesh.ranks(); ++peer) {
    if (peer == me) continue;
    const std::int64_t lo = std::max(new_first, old_mesh.range_begin(peer));
    const std::int64_t hi = std::min(new_end, old_mesh.range_begin(peer + 1));
    if (lo >= hi) continue;
    auto& buffer = buffers_.emplace_back(block_values * static_cast<std::size_t>(hi - lo));
    const Handle h = runtime.create_handle("migrate.buffer");
    comm.irecv(h, buffer.data(), buffer.size() * sizeof(double), peer, tags.tag(0), comm_attr,
               "migrate_recv");
    accesses.assign({read(h)});
    for (std::int64_t p = lo; p < hi; ++p)
      accesses.push_back(write(to.interior(static_cast<LocalBlockIndex>(p - new_first))));
    runtime.submit("migrate_unpack", std::span<const Access>(accesses),
                   [&to, &layout, interior, in = buffer.data(), block_values,
                    first = static_cast<LocalBlockIndex>(lo - new_first), count = hi - lo] {
                     for (std::int64_t b = 0; b < count; ++b)
                       unpack_region(layout, to.data(first + static_cast<LocalBlockIndex>(b)),
                                     interior, in + static_cast<std::size_t>(b) * block_values);
                   });
  }
}

}  // namespace tessera
