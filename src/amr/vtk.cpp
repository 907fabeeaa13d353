#include "tessera/amr/vtk.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "tessera/base/atomic_file.hpp"
#include "tessera/base/check_mpi.hpp"

namespace tessera {

namespace {

// Per block: level, origin x y z (integer forest coordinates).
constexpr int kRecord = 4;

}  // namespace

void write_forest_vtk(const Forest& forest, const std::string& path) {
  const MPI_Comm comm = forest.communicator();
  std::vector<std::int64_t> mine;
  mine.reserve(static_cast<std::size_t>(forest.local_count()) * kRecord);
  for (std::int32_t i = 0; i < forest.local_count(); ++i) {
    const BlockPlace& p = forest.local(i);
    mine.insert(mine.end(), {p.level, p.origin[0], p.origin[1], p.origin[2]});
  }
  const int ranks = forest.size();
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks)),
      displs(static_cast<std::size_t>(ranks), 0);
  TESSERA_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<std::int64_t> all;
  if (forest.rank() == 0) {
    for (int r = 1; r < ranks; ++r)
      displs[static_cast<std::size_t>(r)] =
          displs[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
    all.resize(static_cast<std::size_t>(displs.back() + counts.back()));
  }
  TESSERA_MPI_CHECK(MPI_Gatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(),
                                displs.data(), MPI_INT64_T, 0, comm));
  if (forest.rank() != 0) return;

  const std::size_t blocks = all.size() / kRecord;
  std::string text = fmt::format(
      "# vtk DataFile Version 3.0\ntessera forest: {} blocks\nASCII\nDATASET UNSTRUCTURED_GRID\n"
      "POINTS {} double\n",
      blocks, blocks * 8);
  for (std::size_t b = 0; b < blocks; ++b) {
    BlockPlace p;
    p.level = static_cast<int>(all[b * kRecord]);
    for (int a = 0; a < 3; ++a)
      p.origin[static_cast<std::size_t>(a)] = all[b * kRecord + 1 + static_cast<std::size_t>(a)];
    const auto box = forest.unit_box(p);
    // VTK hexahedron corner order: bottom face counter-clockwise, then top face.
    static constexpr int kCorner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                          {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (const auto& c : kCorner)
      text += fmt::format("{} {} {}\n", box[0][static_cast<std::size_t>(c[0])],
                          box[1][static_cast<std::size_t>(c[1])],
                          box[2][static_cast<std::size_t>(c[2])]);
  }
  text += fmt::format("CELLS {} {}\n", blocks, blocks * 9);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t o = b * 8;
    text += fmt::format("8 {} {} {} {} {} {} {} {}\n", o, o + 1, o + 2, o + 3, o + 4, o + 5, o + 6,
                        o + 7);
  }
  text += fmt::format("CELL_TYPES {}\n", blocks);
  for (std::size_t b = 0; b < blocks; ++b) text += "12\n";
  text += fmt::format("CELL_DATA {}\nSCALARS level int 1\nLOOKUP_TABLE default\n", blocks);
  for (std::size_t b = 0; b < blocks; ++b) text += fmt::format("{}\n", all[b * kRecord]);
  text += "SCALARS rank int 1\nLOOKUP_TABLE default\n";
  for (int r = 0; r < ranks; ++r)
    for (int k = 0; k < counts[static_cast<std::size_t>(r)] / kRecord; ++k)
      text += fmt::format("{}\n", r);

  try {
    write_file_atomically(path, text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("VTK file: {}", e.what()));
  }
}

}  // namespace tessera
