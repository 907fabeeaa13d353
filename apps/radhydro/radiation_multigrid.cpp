#include "radiation_multigrid.hpp"

#include <cmath>
#include <stdexcept>

#include "tessera/mesh/grid_view.hpp"
#include "tessera/runtime/runtime.hpp"

namespace radhydro {
namespace {

using namespace tessera;

HierarchySpec spec_of(Int3 cells, Int3 block_cells, int dim,
                      const std::array<Boundary, 6>& boundary) {
  HierarchySpec spec;
  spec.cells = cells;
  spec.block_cells = block_cells;
  spec.ghost = 1;
  spec.prolongation_ghost = 1;
  spec.halo.copy_per_block = true;
  spec.halo.separate_buffers = true;
  spec.periodic = {boundary[0] == Boundary::periodic, dim > 1 && boundary[2] == Boundary::periodic,
                   dim > 2 && boundary[4] == Boundary::periodic};
  // As many levels as halve every non-flat axis to at least 2 cells with even blocks.
  int levels = 1;
  for (;;) {
    spec.levels = levels + 1;
    try {
      const std::vector<LevelShape> shapes = level_shapes(spec);
      bool fits = true;
      for (int a = 0; a < dim; ++a) {
        fits = fits && shapes[levels - 1].block_cells[a] % 2 == 0 && shapes[levels].cells()[a] >= 2;
      }
      if (!fits) break;
    } catch (const std::invalid_argument&) {
      break;
    }
    ++levels;
  }
  if (levels < 2) throw std::invalid_argument("no coarse level fits the grid and its blocks");
  spec.levels = levels;
  return spec;
}

// The six couplings and the right-hand side of one block of one level.
struct System {
  const double* c[6];
  const double* b;
};

// Diagonal 1 + sum c_f; `off` gets sum c_f e_f.
inline double couplings(const System& s, std::ptrdiff_t at, const std::ptrdiff_t* step, int dim,
                        const double* e, double& off) {
  double diag = 1;
  off = 0;
  for (int f = 0; f < 2 * dim; ++f) {
    const double cf = s.c[f][at];
    diag += cf;
    off += cf * e[at + (f % 2 == 0 ? -step[f / 2] : step[f / 2])];
  }
  return diag;
}

// The sum over the fine children of coarse cell (i, j, k) (2 per non-flat axis) that
// `take(d)` accepts, d the child's offsets per axis.
template <class Take>
double sum_children(ConstGridView fine, int i, int j, int k, int dim, Take&& take) {
  double sum = 0;
  for (int dk = 0; dk < (dim > 2 ? 2 : 1); ++dk) {
    for (int dj = 0; dj < (dim > 1 ? 2 : 1); ++dj) {
      for (int di = 0; di < 2; ++di) {
        const int d[3] = {di, dj, dk};
        if (!take(d)) continue;
        sum += fine(2 * i + di, dim > 1 ? 2 * j + dj : j, dim > 2 ? 2 * k + dk : k);
      }
    }
  }
  return sum;
}

template <class Body>
void for_cells(const BlockLayout& layout, Body&& body) {
  const Int3 n = layout.cells();
  for (int k = 0; k < n.z; ++k) {
    for (int j = 0; j < n.y; ++j) {
      for (int i = 0; i < n.x; ++i) body(layout.index(0, i, j, k));
    }
  }
}

// A task over one block of `layout`: its work is the block's cells (a simulation's modelled
// compute charges it per cell count, docs/scaling-sim.md).
TaskAttributes block_work(const BlockLayout& layout) {
  TaskAttributes a;
  a.work = product(layout.cells());
  return a;
}

}  // namespace

RadiationMultigrid::RadiationMultigrid(Session& session, Int3 cells, Int3 block_cells, int dim,
                                       const std::array<Boundary, 6>& boundary,
                                       VCycleOptions options)
    : session_(session),
      dim_(dim),
      boundary_(boundary),
      options_(options),
      hierarchy_(spec_of(cells, block_cells, dim, boundary), session.comm(), session.exec()),
      e_(hierarchy_, session.runtime(), "mg-e"),
      t_(hierarchy_, session.runtime(), "mg-t"),
      b_(hierarchy_, session.runtime(), "mg-b"),
      r_(hierarchy_, session.runtime(), "mg-r") {
  for (int f = 0; f < 6; ++f) {
    c_storage_.push_back(std::make_unique<LevelField>(hierarchy_, session.runtime(), "mg-c"));
    c_[f] = c_storage_.back().get();
  }
  sums_handle_ = session.runtime().create_reduction_handle(
      "mg-residual", &sums_,
      [](std::array<ExactSum, 2>& total, const std::array<ExactSum, 2>& part) {
        total[0].add(part[0]);
        total[1].add(part[1]);
      });
}

bool RadiationMultigrid::closed_face(LocalBlockIndex block, int f) const {
  const UniformMesh& mesh = hierarchy_.mesh(0);
  const MeshBlock& mb = mesh.local_block(block);
  const int a = f / 2;
  if (a >= dim_ || boundary_[f] == Boundary::periodic) return false;
  return f % 2 == 0 ? mb.coord[a] == 0 : mb.coord[a] == mesh.blocks()[a] - 1;
}

void RadiationMultigrid::submit_coarsen() {
  const int dim = dim_;
  for (int l = 0; l + 1 < levels(); ++l) {
    for (int f = 0; f < 2 * dim; ++f) {
      // The coarse face's coupling: the mean over the fine faces on it, / 4.
      hierarchy_.transfer(l).restrict_field(
          (*c_[f])[l], (*c_[f])[l + 1], [dim, f](ConstGridView fine, GridView coarse, Int3 n) {
            const int a = f / 2;
            const double share = 0.25 / (dim == 1 ? 1 : (dim == 2 ? 2 : 4));
            for (int k = 0; k < n.z; ++k) {
              for (int j = 0; j < n.y; ++j) {
                for (int i = 0; i < n.x; ++i) {
                  const double sum =
                      sum_children(fine, i, j, k, dim, [&](const int* d) { return d[a] == f % 2; });
                  coarse(i, j, k) = sum * share;
                }
              }
            }
          });
    }
  }
}

void RadiationMultigrid::sweeps(int l, int count) {
  BlockField& e = e_[l];
  BlockField& t = t_[l];
  const BlockLayout* layout = &e.layout();
  const int dim = dim_;
  const double omega = options_.omega;
  for (int s = 0; s < count; ++s) {
    BlockField& in = s % 2 == 0 ? e : t;
    BlockField& out = s % 2 == 0 ? t : e;
    hierarchy_.halo(l).exchange(in);
    session_.exec().begin_phase("mg-sweep");
    for (LocalBlockIndex blk = 0; blk < hierarchy_.mesh(l).local_block_count(); ++blk) {
      std::vector<Access> access{read(in.interior(blk)), read(in.ghosts(blk)),
                                 read(b_[l].interior(blk)), write(out.interior(blk))};
      System sys{};
      for (int f = 0; f < 6; ++f) {
        access.push_back(read((*c_[f])[l].interior(blk)));
        sys.c[f] = (*c_[f])[l].data(blk);
      }
      sys.b = b_[l].data(blk);
      session_.runtime().submit(
          "mg-sweep", std::span<const Access>(access),
          [layout, sys, dim, omega, src = in.data(blk), dst = out.data(blk)] {
            const std::ptrdiff_t step[3] = {1, layout->stride_y(), layout->stride_z()};
            for_cells(*layout, [&](std::ptrdiff_t c) {
              double off = 0;
              const double diag = couplings(sys, c, step, dim, src, off);
              dst[c] = (1 - omega) * src[c] + omega * (sys.b[c] + off) / diag;
            });
          },
          block_work(*layout));
    }
    session_.exec().end_phase();
  }
  // An odd count left the result in t: copy it back.
  if (count % 2 == 1) {
    session_.exec().begin_phase("mg-copy");
    for (LocalBlockIndex blk = 0; blk < hierarchy_.mesh(l).local_block_count(); ++blk) {
      session_.runtime().submit(
          "mg-copy", {read(t.interior(blk)), write(e.interior(blk))},
          [layout, src = t.data(blk), dst = e.data(blk)] {
            for_cells(*layout, [&](std::ptrdiff_t c) { dst[c] = src[c]; });
          },
          block_work(*layout));
    }
    session_.exec().end_phase();
  }
}

void RadiationMultigrid::submit_residual(int l) {
  hierarchy_.halo(l).exchange(e_[l]);
  const BlockLayout* layout = &e_[l].layout();
  const int dim = dim_;
  session_.exec().begin_phase("mg-residual");
  for (LocalBlockIndex blk = 0; blk < hierarchy_.mesh(l).local_block_count(); ++blk) {
    std::vector<Access> access{read(e_[l].interior(blk)), read(e_[l].ghosts(blk)),
                               read(b_[l].interior(blk)), write(r_[l].interior(blk))};
    std::array<const double*, 6> c{};
    for (int f = 0; f < 6; ++f) {
      access.push_back(read((*c_[f])[l].interior(blk)));
      c[f] = (*c_[f])[l].data(blk);
    }
    session_.runtime().submit(
        "mg-residual", std::span<const Access>(access),
        [layout, c, dim, e = e_[l].data(blk), b = b_[l].data(blk), r = r_[l].data(blk)] {
          const std::ptrdiff_t step[3] = {1, layout->stride_y(), layout->stride_z()};
          const System sys{{c[0], c[1], c[2], c[3], c[4], c[5]}, b};
          for_cells(*layout, [&](std::ptrdiff_t at) {
            double off = 0;
            const double diag = couplings(sys, at, step, dim, e, off);
            r[at] = b[at] - (diag * e[at] - off);
          });
        },
        block_work(*layout));
  }
  session_.exec().end_phase();
}

void RadiationMultigrid::zero(int l) {
  session_.exec().begin_phase("mg-zero");
  for (LocalBlockIndex blk = 0; blk < hierarchy_.mesh(l).local_block_count(); ++blk) {
    session_.runtime().submit(
        "mg-zero", {write(e_[l].interior(blk))},
        [layout = &e_[l].layout(), e = e_[l].data(blk)] {
          for_cells(*layout, [&](std::ptrdiff_t c) { e[c] = 0; });
        },
        block_work(e_[l].layout()));
  }
  session_.exec().end_phase();
}

void RadiationMultigrid::cycle_from(int l) {
  if (l == levels() - 1) {
    sweeps(l, options_.coarse_sweeps);
    return;
  }
  const int dim = dim_;
  sweeps(l, options_.pre_sweeps);
  submit_residual(l);
  hierarchy_.transfer(l).restrict_field(
      r_[l], b_[l + 1], [dim](ConstGridView fine, GridView coarse, Int3 n) {
        const double share = 1.0 / (1 << dim);
        for (int k = 0; k < n.z; ++k) {
          for (int j = 0; j < n.y; ++j) {
            for (int i = 0; i < n.x; ++i) {
              const double sum = sum_children(fine, i, j, k, dim, [](const int*) { return true; });
              coarse(i, j, k) = sum * share;
            }
          }
        }
      });
  zero(l + 1);
  cycle_from(l + 1);
  hierarchy_.transfer(l).prolong_field(
      e_[l + 1], e_[l], [dim](ConstGridView coarse, GridView fine, Int3 n) {
        for (int k = 0; k < n.z; ++k) {
          for (int j = 0; j < n.y; ++j) {
            for (int i = 0; i < n.x; ++i) {
              fine(i, j, k) += coarse(i / 2, dim > 1 ? j / 2 : j, dim > 2 ? k / 2 : k);
            }
          }
        }
      });
  sweeps(l, options_.post_sweeps);
}

double RadiationMultigrid::residual() {
  hierarchy_.halo(0).exchange(e_[0]);
  const BlockLayout* layout = &e_[0].layout();
  const int dim = dim_;
  session_.exec().begin_phase("mg-norm");
  for (LocalBlockIndex blk = 0; blk < hierarchy_.mesh(0).local_block_count(); ++blk) {
    std::vector<Access> access{read(e_[0].interior(blk)), read(e_[0].ghosts(blk)),
                               read(b_[0].interior(blk)), reduce(sums_handle_)};
    std::array<const double*, 6> c{};
    for (int f = 0; f < 6; ++f) {
      access.push_back(read((*c_[f])[0].interior(blk)));
      c[f] = (*c_[f])[0].data(blk);
    }
    session_.runtime().submit(
        "mg-norm", std::span<const Access>(access),
        [layout, c, dim, e = e_[0].data(blk), b = b_[0].data(blk),
         h = sums_handle_](TaskContext& ctx) {
          auto& sums = ctx.reduction_slot<std::array<ExactSum, 2>>(h);
          const std::ptrdiff_t step[3] = {1, layout->stride_y(), layout->stride_z()};
          const System sys{{c[0], c[1], c[2], c[3], c[4], c[5]}, b};
          for_cells(*layout, [&](std::ptrdiff_t at) {
            double off = 0;
            const double diag = couplings(sys, at, step, dim, e, off);
            const double r = (b[at] - (diag * e[at] - off)) / diag;
            sums[0].add(r * r);
            sums[1].add(e[at] * e[at]);
          });
        },
        block_work(*layout));
  }
  session_.exec().end_phase();
  session_.comm().iallreduce_sum(sums_handle_, &sums_[0]);
  session_.comm().iallreduce_sum(sums_handle_, &sums_[1]);
  session_.runtime().wait_for(sums_handle_);
  const double r = sums_[0].value(), e = sums_[1].value();
  sums_ = {};
  return e > 0 ? std::sqrt(r / e) : std::sqrt(r);
}

}  // namespace radhydro
