#include "checksums.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "stencil.hpp"

namespace miniamr {

namespace {

// Weight of a cell for the final checksum: makes the sum depend on where each value sits,
// not only on the total. (ix, iy, iz) is the cell's index on the grid of its level.
double cell_weight(std::int64_t ix, std::int64_t iy, std::int64_t iz, int level, int v) {
  const std::int64_t h = (ix * 7919 + iy * 104729 + iz * 1299709 + level * 613 + v * 31) % 1021;
  return 1.0 + static_cast<double>(h) / 1021.0;
}

double weighted_block_sum(const tessera::BlockShape& s, const tessera::BlockPlace& place,
                          const double* block, int v) {
  std::int64_t base[3];
  for (int a = 0; a < 3; ++a) base[a] = place.origin[a] / place.length() * s.cells[a];
  // miniAMR's order, i outermost and k innermost: the sum's bits depend on it.
  const tessera::BlockLayout l = s.layout();
  double sum = 0.0;
  for (int i = 0; i < s.cells[0]; ++i)
    for (int j = 0; j < s.cells[1]; ++j)
      for (int k = 0; k < s.cells[2]; ++k)
        sum += block[l.index(v, i, j, k)] *
               cell_weight(base[0] + i, base[1] + j, base[2] + k, place.level, v);
  return sum;
}

}  // namespace

Checksums::Checksums(tessera::Comm& comm, int num_vars) : comm_(comm), num_vars_(num_vars) {
  tessera::Runtime& runtime = comm.runtime();
  for (int r = 0; r < 2; ++r) {
    Round& rd = rounds_[r];
    rd.partials_handle = runtime.create_reduction_handle<std::int64_t>(
        fmt::format("checksum{}.partials", r), &rd.tasks_done,
        [](std::int64_t& total, std::int64_t done) { total += done; });
    rd.sums_handle = runtime.create_handle(fmt::format("checksum{}.sums", r));
    rd.sums.resize(static_cast<std::size_t>(num_vars));
  }
}

void Checksums::begin_round(int r, const tessera::AmrMesh& mesh, SumKind kind) {
  current_ = r;
  Round& rd = round(r);
  rd.kind = kind;
  rd.partials.assign(
      static_cast<std::size_t>(mesh.local_block_count()) * static_cast<std::size_t>(num_vars_),
      0.0);
  rd.tasks_done = 0;
  rd.tasks_expected = 0;
}

void Checksums::submit_group(tessera::AmrMesh& mesh, int g) {
  Round& rd = round(current_);
  const tessera::BlockShape& shape = mesh.shape();
  const int first = shape.group_first(g), vars = shape.group_vars(g);
  const tessera::Handle partials = rd.partials_handle;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    double* out =
        rd.partials.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(num_vars_);
    const double* block = mesh.data(b);
    const tessera::BlockPlace place = mesh.place(b);
    const bool weighted = rd.kind == SumKind::weighted;
    // A reduce access lets the block tasks run concurrently; each writes its own entries
    // and counts itself, and the combining task (readwrite) runs after all of them.
    comm_.runtime().submit(
        "checksum_block", {read(mesh.interior(b, g)), reduce(partials)},
        [&shape, out, block, place, first, vars, weighted, partials](tessera::TaskContext& ctx) {
          for (int v = first; v < first + vars; ++v)
            out[v] =
                weighted ? weighted_block_sum(shape, place, block, v) : block_sum(shape, block, v);
          ctx.reduction_slot<std::int64_t>(partials) += 1;
        });
    ++rd.tasks_expected;
  }
}

void Checksums::end_round() {
  Round& rd = round(current_);
  Round* p = &rd;
  const int vars = num_vars_;
  comm_.runtime().submit(
      "checksum_combine", {readwrite(rd.partials_handle), write(rd.sums_handle)}, [p, vars] {
        if (p->tasks_done != p->tasks_expected)
          throw std::logic_error(fmt::format("checksum: {} block sums arrived, {} expected",
                                             p->tasks_done, p->tasks_expected));
        const std::size_t blocks = p->partials.size() / static_cast<std::size_t>(vars);
        for (int v = 0; v < vars; ++v) {
          tessera::ExactSum sum;
          for (std::size_t b = 0; b < blocks; ++b)
            sum.add(p->partials[b * static_cast<std::size_t>(vars) + static_cast<std::size_t>(v)]);
          p->sums[static_cast<std::size_t>(v)] = sum;
        }
      });
  for (int v = 0; v < vars; ++v)
    comm_.iallreduce_sum(rd.sums_handle, &rd.sums[static_cast<std::size_t>(v)]);
}

const std::vector<tessera::ExactSum>& Checksums::wait(int r) {
  Round& rd = round(r);
  comm_.runtime().wait_for(rd.sums_handle);
  return rd.sums;
}

}  // namespace miniamr
