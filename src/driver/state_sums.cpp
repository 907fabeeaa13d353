#include "tessera/driver/state_sums.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace tessera {

namespace {

// Weight of a cell in a weighted sum: makes the sum depend on where each value sits, not
// only on the total. (ix, iy, iz) is the cell's index on the grid of its level.
double cell_weight(std::int64_t ix, std::int64_t iy, std::int64_t iz, int level, int v) {
  const std::int64_t h = (ix * 7919 + iy * 104729 + iz * 1299709 + level * 613 + v * 31) % 1021;
  return 1.0 + static_cast<double>(h) / 1021.0;
}

// The block's sum of variable v, i outermost and k innermost (the bits depend on the order).
double block_sum(const BlockShape& s, const BlockPlace& place, const double* block, int v,
                 bool weighted) {
  const BlockLayout l = s.layout();
  const std::ptrdiff_t sz = l.stride_z();
  double sum = 0.0;
  if (!weighted) {
    for (int i = 0; i < s.cells[0]; ++i)
      for (int j = 0; j < s.cells[1]; ++j) {
        const double* c = block + l.index(v, i, j, 0);
        for (int k = 0; k < s.cells[2]; ++k) sum += c[k * sz];
      }
    return sum;
  }
  std::int64_t base[3];
  for (int a = 0; a < 3; ++a) base[a] = place.origin[a] / place.length() * s.cells[a];
  for (int i = 0; i < s.cells[0]; ++i)
    for (int j = 0; j < s.cells[1]; ++j)
      for (int k = 0; k < s.cells[2]; ++k)
        sum += block[l.index(v, i, j, k)] *
               cell_weight(base[0] + i, base[1] + j, base[2] + k, place.level, v);
  return sum;
}

}  // namespace

StateSums::StateSums(Comm& comm, int vars) : comm_(comm), vars_(vars) {
  Runtime& runtime = comm.runtime();
  for (int r = 0; r < 2; ++r) {
    Round& rd = rounds_[r];
    rd.partials_handle = runtime.create_reduction_handle<std::int64_t>(
        fmt::format("state_sums{}.partials", r), &rd.tasks_done,
        [](std::int64_t& total, std::int64_t done) { total += done; });
    rd.sums_handle = runtime.create_handle(fmt::format("state_sums{}.sums", r));
    rd.sums.resize(static_cast<std::size_t>(vars));
  }
}

void StateSums::begin_round(int r, const AmrMesh& mesh, SumKind kind) {
  current_ = r;
  Round& rd = round(r);
  rd.kind = kind;
  rd.partials.assign(
      static_cast<std::size_t>(mesh.local_block_count()) * static_cast<std::size_t>(vars_), 0.0);
  rd.tasks_done = 0;
  rd.tasks_expected = 0;
}

void StateSums::submit_group(AmrMesh& mesh, int g) {
  Round& rd = round(current_);
  const BlockShape& shape = mesh.shape();
  const int first = shape.group_first(g), vars = shape.group_vars(g);
  const Handle partials = rd.partials_handle;
  for (std::int32_t b = 0; b < mesh.local_block_count(); ++b) {
    double* out =
        rd.partials.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(vars_);
    const double* block = mesh.data(b);
    const BlockPlace place = mesh.place(b);
    const bool weighted = rd.kind == SumKind::weighted;
    // A reduce access lets the block tasks run concurrently; each writes its own entries
    // and counts itself, and the combining task (readwrite) runs after all of them.
    comm_.runtime().submit(
        "state_sum_block", {read(mesh.interior(b, g)), reduce(partials)},
        [&shape, out, block, place, first, vars, weighted, partials](TaskContext& ctx) {
          for (int v = first; v < first + vars; ++v)
            out[v] = block_sum(shape, place, block, v, weighted);
          ctx.reduction_slot<std::int64_t>(partials) += 1;
        });
    ++rd.tasks_expected;
  }
}

void StateSums::end_round() {
  Round* p = &round(current_);
  const int vars = vars_;
  comm_.runtime().submit(
      "state_sum_combine", {readwrite(p->partials_handle), write(p->sums_handle)}, [p, vars] {
        if (p->tasks_done != p->tasks_expected)
          throw std::logic_error(fmt::format("state sums: {} block sums arrived, {} expected",
                                             p->tasks_done, p->tasks_expected));
        const std::size_t blocks = p->partials.size() / static_cast<std::size_t>(vars);
        for (int v = 0; v < vars; ++v) {
          ExactSum sum;
          for (std::size_t b = 0; b < blocks; ++b)
            sum.add(p->partials[b * static_cast<std::size_t>(vars) + static_cast<std::size_t>(v)]);
          p->sums[static_cast<std::size_t>(v)] = sum;
        }
      });
  for (int v = 0; v < vars; ++v)
    comm_.iallreduce_sum(p->sums_handle, &p->sums[static_cast<std::size_t>(v)]);
}

const std::vector<ExactSum>& StateSums::wait(int r) {
  Round& rd = round(r);
  comm_.runtime().wait_for(rd.sums_handle);
  return rd.sums;
}

}  // namespace tessera
