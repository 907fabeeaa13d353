// write_plot_file on an adaptive mesh of two levels: the HDF5 file holds every block of every
// rank with its level, rank and geometry, and every cell of the named variables where the
// geometry says it is; the XDMF files are written; failures throw on every rank and leave
// nothing behind.
#include "tessera/io/plot_file.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../amr/mesh_fixture.hpp"
#include "shared_temp_dir.hpp"

// A namespace of its own: the MPI tests build as unity batches (checkpoint_test.cpp has
// helpers of the same names).
namespace tessera::plot_file_test {
namespace {

using io_test::remove_shared;
using io_test::shared_temp_dir;
using io_test::world_rank;

namespace fs = std::filesystem;
using amr_test::cell_value;
using amr_test::fill_positions;
using amr_test::MeshRuntime;


AmrMeshOptions two_roots() {
  AmrMeshOptions options;
  options.root_blocks = {2, 1, 1};
  options.shape.cells = {4, 2, 2};
  options.shape.num_vars = 2;
  options.shape.group_size = 1;
  return options;
}

// Splits the first block of the forest (wherever it is) once: two levels.
void split_first_block(MeshRuntime& rt, AmrMesh& mesh) {
  std::vector<std::int8_t> marks(static_cast<std::size_t>(mesh.local_block_count()), 0);
  if (!marks.empty() && mesh.forest().global_index({false, 0}) == 0) marks[0] = 1;
  mesh.adapt(marks);
  rt.exec.barrier();
}

template <class T>
std::vector<T> read_all(hid_t file, const char* name, hid_t type, std::size_t count) {
  std::vector<T> values(count);
  const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  EXPECT_GE(d, 0) << name;
  if (d < 0) return {};
  EXPECT_GE(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0) << name;
  H5Dclose(d);
  return values;
}

TEST(PlotFile, EveryCellOfEveryBlockWhereItsGeometrySays) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, two_roots());
  split_first_block(rt, mesh);
  fill_positions(mesh);
  const std::string dir = shared_temp_dir("tessera_plot_");
  PlotOutput out;
  out.dir = dir;
  out.prefix = "t";
  out.step = 7;
  out.time = 0.25;
  out.hi = {2, 1, 1};  // level-0 cells of 0.25 x 0.5 x 0.5
  out.variables = {{"b", 1}, {"a", 0}};
  const PlotFiles files = write_plot_file(mesh, out);
  EXPECT_EQ(files.data, dir + "/t_000007.h5");
  const std::int64_t blocks = mesh.forest().global_count();
  EXPECT_EQ(blocks, 9);
  EXPECT_EQ(files.field_bytes, blocks * 16 * 8 * 2);

  if (world_rank() == 0) {
    const hid_t file = H5Fopen(files.data.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const auto n = static_cast<std::size_t>(blocks);
    const auto level = read_all<std::int32_t>(file, "/blocks/level", H5T_NATIVE_INT32, n);
    const auto rank = read_all<std::int32_t>(file, "/blocks/rank", H5T_NATIVE_INT32, n);
    const auto origin = read_all<double>(file, "/blocks/origin", H5T_NATIVE_DOUBLE, 3 * n);
    const auto spacing = read_all<double>(file, "/blocks/spacing", H5T_NATIVE_DOUBLE, 3 * n);
    const std::vector<std::vector<double>> fields = {
        read_all<double>(file, "/fields/b", H5T_NATIVE_DOUBLE, n * 16),
        read_all<double>(file, "/fields/a", H5T_NATIVE_DOUBLE, n * 16)};
    H5Fclose(file);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int level1 = 0;
    for (std::size_t b = 0; b < n; ++b) {
      level1 += level[b];
      EXPECT_TRUE(rank[b] >= 0 && rank[b] < size && (b == 0 || rank[b] >= rank[b - 1]));
      const double h[3] = {0.25 / (1 << level[b]), 0.5 / (1 << level[b]), 0.5 / (1 << level[b])};
      std::int64_t g[3];
      for (int a = 0; a < 3; ++a) {
        EXPECT_EQ(spacing[3 * b + a], h[a]) << "block " << b << " axis " << a;
        g[a] = static_cast<std::int64_t>(origin[3 * b + a] / h[a]);
        EXPECT_EQ(static_cast<double>(g[a]) * h[a], origin[3 * b + a]);
      }
      // [block][z][y][x]: x fastest.
      for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j)
          for (int i = 0; i < 4; ++i)
            for (int f = 0; f < 2; ++f)
              ASSERT_EQ(fields[static_cast<std::size_t>(f)][b * 16 + (k * 2 + j) * 4 + i],
                        cell_value(level[b], g[0] + i, g[1] + j, g[2] + k, 1 - f))
                  << "block " << b << " cell " << i << " " << j << " " << k << " field " << f;
    }
    EXPECT_EQ(level1, 8);  // the split block's children
    EXPECT_TRUE(fs::exists(files.description));
    std::ifstream series(files.series);
    const std::string text((std::istreambuf_iterator<char>(series)), {});
    EXPECT_NE(text.find("href=\"t_000007.xmf\""), std::string::npos) << text;
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().filename().string().find("tmp"), std::string::npos) << e.path();
  }
  remove_shared(dir);
}

TEST(PlotFile, FailuresThrowOnEveryRankAndLeaveNothing) {
  MeshRuntime rt;
  AmrMesh mesh(rt.comm, rt.exec, two_roots());
  fill_positions(mesh);
  const std::string dir = shared_temp_dir("tessera_plot_");
  PlotOutput out;
  out.prefix = "t";
  out.variables = {{"a", 0}};
  // A directory that does not exist: rank 0 cannot create the file.
  out.dir = dir + "/missing";
  EXPECT_THROW(write_plot_file(mesh, out), std::runtime_error);
  // A variable the blocks do not have, or a prefix with a '/': refused before any I/O.
  out.dir = dir;
  out.variables = {{"a", 2}};
  EXPECT_THROW(write_plot_file(mesh, out), std::invalid_argument);
  out.variables = {{"a", 0}};
  out.prefix = "a/b";
  EXPECT_THROW(write_plot_file(mesh, out), std::invalid_argument);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_FALSE(fs::exists(dir + "/missing"));
  MPI_Barrier(MPI_COMM_WORLD);  // every rank looked before any creates something
  EXPECT_EQ(output_directory_problem(dir + "/new/sub"), "");
  std::ofstream(dir + "/file") << "x";
  EXPECT_NE(output_directory_problem(dir + "/file"), "");
  remove_shared(dir);
}

}  // namespace
}  // namespace tessera::plot_file_test
