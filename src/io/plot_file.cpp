// write_plot_file: one collective parallel-HDF5 write per output (MPI-IO driver), then
// rank 0 writes the XDMF description and the series; everything under temporary names.
#include "tessera/io/plot_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "comm/check_mpi.hpp"
#include "io/hdf5_objects.hpp"

namespace tessera {

using detail::Hid;

namespace {

constexpr const char* kFormat = "tessera-plot";
constexpr std::int64_t kFormatVersion = 1;

// What rank 0 needs of every block for the XDMF description.
struct BlockRecord {
  double level = 0, rank = 0;
  std::array<double, 3> origin{}, spacing{};
};
static_assert(sizeof(BlockRecord) == 8 * sizeof(double));

std::string stem(const PlotOutput& o) {
  return fmt::format("{}_{:06d}", o.prefix, o.step);
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
  });
}

// Creates dataset `name` of `type` with dims {blocks, inner...}, storage allocated at
// creation and no fill (every element is written).
Hid create_dataset(hid_t parent, const char* name, hid_t type, std::vector<hsize_t> dims) {
  Hid space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Hid create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER);
  H5Pset_alloc_time(create.get(), H5D_ALLOC_TIME_EARLY);
  return Hid(H5Dcreate2(parent, name, type, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
             H5Dclose);
}

// Collective: this rank writes blocks [first, first + count) of `dataset` (dims {blocks,
// inner...}) from `data`; a rank without blocks selects nothing and still takes part.
bool write_blocks(hid_t dataset, hid_t type, std::int64_t first, std::int64_t count,
                  const std::vector<hsize_t>& inner, const void* data) {
  std::vector<hsize_t> start(inner.size() + 1, 0), size(inner.size() + 1, 1);
  start[0] = static_cast<hsize_t>(first);
  size[0] = static_cast<hsize_t>(std::max<std::int64_t>(count, 1));
  std::copy(inner.begin(), inner.end(), size.begin() + 1);
  Hid file_space(H5Dget_space(dataset), H5Sclose);
  Hid memory_space(H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr), H5Sclose);
  if (!file_space.valid() || !memory_space.valid()) return false;
  if (count > 0) {
    if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, size.data(),
                            nullptr) < 0)
      return false;
  } else {
    H5Sselect_none(file_space.get());
    H5Sselect_none(memory_space.get());
  }
  Hid transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE);
  return H5Dwrite(dataset, type, memory_space.get(), file_space.get(), transfer.get(), data) >= 0;
}

template <class T>
bool write_array_attribute(hid_t object, const char* name, hid_t type,
                           const std::array<T, 3>& value) {
  const hsize_t n = 3;
  Hid space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hid attr(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return attr.valid() && H5Awrite(attr.get(), type, value.data()) >= 0;
}

// Every rank: the HDF5 file at `path`. Returns false if any HDF5 step failed on this rank.
bool write_data(MPI_Comm comm, AmrMesh& mesh, const PlotOutput& o, const std::string& path,
                std::int64_t first, std::int64_t total, const std::vector<BlockRecord>& mine) {
  const BlockShape& s = mesh.shape();
  Hid access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL);
  Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
  if (!file.valid()) return false;
  const hid_t root = file.get();
  const std::array<std::int64_t, 3> cells{s.cells[0], s.cells[1], s.cells[2]};
  bool ok = detail::write_attribute(root, "format", std::string(kFormat)) &&
            detail::write_attribute(root, "format_version", kFormatVersion) &&
            detail::write_attribute(root, "step", o.step) &&
            detail::write_attribute(root, "time", o.time) &&
            detail::write_attribute(root, "dim", static_cast<std::int64_t>(mesh.forest().dim())) &&
            detail::write_attribute(root, "block_count", total) &&
            write_array_attribute(root, "block_cells", H5T_NATIVE_INT64, cells) &&
            write_array_attribute(root, "lo", H5T_NATIVE_DOUBLE, o.lo) &&
            write_array_attribute(root, "hi", H5T_NATIVE_DOUBLE, o.hi);
  if (!ok) return false;
  const auto blocks = static_cast<hsize_t>(total);
  const auto local = static_cast<std::int64_t>(mine.size());
  {
    Hid group(H5Gcreate2(root, "blocks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!group.valid()) return false;
    std::vector<std::int32_t> level, rank;
    std::vector<double> origin, spacing;
    for (const BlockRecord& r : mine) {
      level.push_back(static_cast<std::int32_t>(r.level));
      rank.push_back(static_cast<std::int32_t>(r.rank));
      origin.insert(origin.end(), r.origin.begin(), r.origin.end());
      spacing.insert(spacing.end(), r.spacing.begin(), r.spacing.end());
    }
    const auto one = [&](const char* name, hid_t type, std::vector<hsize_t> inner,
                         const void* data) {
      std::vector<hsize_t> dims{blocks};
      dims.insert(dims.end(), inner.begin(), inner.end());
      Hid d = create_dataset(group.get(), name, type, dims);
      return d.valid() && write_blocks(d.get(), type, first, local, inner, data);
    };
    ok = one("level", H5T_NATIVE_INT32, {}, level.data()) &&
         one("rank", H5T_NATIVE_INT32, {}, rank.data()) &&
         one("origin", H5T_NATIVE_DOUBLE, {3}, origin.data()) &&
         one("spacing", H5T_NATIVE_DOUBLE, {3}, spacing.data());
    if (!ok) return false;
  }
  Hid group(H5Gcreate2(root, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.valid()) return false;
  // Per block [z][y][x], x fastest (C order, as h5py and XDMF read it), whatever order the
  // blocks store their cells in: read through BlockShape::index only.
  const std::vector<hsize_t> inner{static_cast<hsize_t>(s.cells[2]),
                                   static_cast<hsize_t>(s.cells[1]),
                                   static_cast<hsize_t>(s.cells[0])};
  std::vector<double> buffer(static_cast<std::size_t>(local) * s.interior_cells());
  for (const PlotVariable& v : o.variables) {
    double* out = buffer.data();
    for (std::int32_t b = 0; b < mesh.local_count(); ++b) {
      const double* data = mesh.data(b);
      for (int k = 0; k < s.cells[2]; ++k)
        for (int j = 0; j < s.cells[1]; ++j)
          for (int i = 0; i < s.cells[0]; ++i)
            *out++ = data[s.index(v.var, i + s.ghost[0], j + s.ghost[1], k + s.ghost[2])];
    }
    Hid d = create_dataset(group.get(), v.name.c_str(), H5T_NATIVE_DOUBLE,
                           {blocks, inner[0], inner[1], inner[2]});
    if (!d.valid() || !write_blocks(d.get(), H5T_NATIVE_DOUBLE, first, local, inner, buffer.data()))
      return false;
  }
  group.reset();
  // On disk before the rename publishes it (MPI_File_sync under the MPI-IO driver).
  if (H5Fflush(root, H5F_SCOPE_GLOBAL) < 0) return false;
  return file.reset();
}

// The spatial collection of one output (rank 0), indented for the .xmf file; `data` is the
// HDF5 file's name relative to the XML file.
std::string spatial_grid(const PlotOutput& o, const BlockShape& s, const std::string& data,
                         const std::vector<BlockRecord>& all) {
  const std::size_t n = all.size();
  std::string x = fmt::format(
      "    <Grid Name=\"{}\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
      "      <Time Value=\"{:.17g}\"/>\n",
      stem(o), o.time);
  const int nx = s.cells[0], ny = s.cells[1], nz = s.cells[2];
  for (std::size_t b = 0; b < n; ++b) {
    const BlockRecord& r = all[b];
    // XDMF lists coordinates slowest axis first: z y x.
    x += fmt::format(
        "      <Grid Name=\"block{}\" GridType=\"Uniform\">\n"
        "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{} {} {}\"/>\n"
        "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">{:.17g} {:.17g} {:.17g}</DataItem>\n"
        "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">{:.17g} {:.17g} {:.17g}</DataItem>\n"
        "        </Geometry>\n",
        b, nz + 1, ny + 1, nx + 1, r.origin[2], r.origin[1], r.origin[0], r.spacing[2],
        r.spacing[1], r.spacing[0]);
    for (const PlotVariable& v : o.variables)
      x += fmt::format(
          "        <Attribute Name=\"{0}\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
          "          <DataItem ItemType=\"HyperSlab\" Dimensions=\"{2} {3} {4}\" "
          "Type=\"HyperSlab\">\n"
          "            <DataItem Dimensions=\"3 4\" Format=\"XML\">{1} 0 0 0 1 1 1 1 1 {2} {3} "
          "{4}</DataItem>\n"
          "            <DataItem Dimensions=\"{5} {2} {3} {4}\" NumberType=\"Float\" "
          "Precision=\"8\" Format=\"HDF\">{6}:/fields/{0}</DataItem>\n"
          "          </DataItem>\n"
          "        </Attribute>\n",
          v.name, b, nz, ny, nx, n, data);
    // One value per block (field data in ParaView).
    x += fmt::format(
        "        <Attribute Name=\"level\" AttributeType=\"Scalar\" Center=\"Grid\">\n"
        "          <DataItem Dimensions=\"1\" NumberType=\"Int\" Format=\"XML\">{}</DataItem>\n"
        "        </Attribute>\n"
        "        <Attribute Name=\"rank\" AttributeType=\"Scalar\" Center=\"Grid\">\n"
        "          <DataItem Dimensions=\"1\" NumberType=\"Int\" Format=\"XML\">{}</DataItem>\n"
        "        </Attribute>\n"
        "      </Grid>\n",
        static_cast<int>(r.level), static_cast<int>(r.rank));
  }
  x += "    </Grid>\n";
  return x;
}

constexpr const char* kHead =
    "<?xml version=\"1.0\" ?>\n"
    "<Xdmf Version=\"2.0\">\n  <Domain>\n";
constexpr const char* kSeriesHead =
    "<?xml version=\"1.0\" ?>\n"
    "<Xdmf xmlns:xi=\"http://www.w3.org/2001/XInclude\" Version=\"2.0\">\n  <Domain>\n";
constexpr const char* kTail = "  </Domain>\n</Xdmf>\n";

// Writes `text` to `path` under a temporary name, then renames it; "" or what failed.
std::string write_text_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << text) || !out.flush()) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return fmt::format("cannot write {}", tmp);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return fmt::format("cannot rename {} to {}", tmp, path);
  }
  return {};
}

// The series: every PREFIX_<n>.xmf in DIR with n <= o.step, in step order (rank 0), each
// included by reference (XInclude) so that the series stays small.
std::string series_text(const PlotOutput& o, std::string& error) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  const std::string head = o.prefix + "_";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(o.dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= head.size() + 4 || name.compare(0, head.size(), head) != 0 ||
        name.compare(name.size() - 4, 4, ".xmf") != 0)
      continue;
    const std::string digits = name.substr(head.size(), name.size() - head.size() - 4);
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const std::int64_t n = std::stoll(digits);
    if (n <= o.step) found.emplace_back(n, name);
  }
  if (ec) error = fmt::format("cannot list {}: {}", o.dir, ec.message());
  std::sort(found.begin(), found.end());
  std::string x = kSeriesHead;
  x += "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const auto& [n, name] : found)
    x += fmt::format("      <xi:include href=\"{}\" xpointer=\"xpointer(//Xdmf/Domain/Grid)\"/>\n",
                     name);
  x += "    </Grid>\n";
  x += kTail;
  return x;
}

}  // namespace

std::string output_directory_problem(const std::string& dir) {
  if (dir.empty()) return "is empty";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec))
    return fmt::format("cannot create directory '{}'", dir);
  const std::string probe = fmt::format("{}/.tessera-probe.{}", dir, ::getpid());
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out || !(out << "probe") || !out.flush())
      return fmt::format("cannot write in directory '{}'", dir);
  }
  std::filesystem::remove(probe, ec);
  return {};
}

PlotFiles write_plot_file(AmrMesh& mesh, const PlotOutput& o) {
  const auto start = std::chrono::steady_clock::now();
  const BlockShape& s = mesh.shape();
  if (!valid_name(o.prefix))
    throw std::invalid_argument(
        fmt::format("plot file prefix '{}': use letters, digits, _ - .", o.prefix));
  if (o.step < 0) throw std::invalid_argument(fmt::format("plot file step {} < 0", o.step));
  for (const PlotVariable& v : o.variables) {
    if (!valid_name(v.name))
      throw std::invalid_argument(
          fmt::format("plot variable name '{}': use letters, digits, _ - .", v.name));
    if (v.var < 0 || v.var >= s.num_vars)
      throw std::invalid_argument(
          fmt::format("plot variable '{}': index {} not in 0..{}", v.name, v.var, s.num_vars - 1));
  }
  const Forest& forest = mesh.forest();
  const MPI_Comm comm = forest.communicator();
  const int rank = forest.rank(), ranks = forest.size();

  std::vector<BlockRecord> mine(static_cast<std::size_t>(mesh.local_count()));
  for (std::int32_t b = 0; b < mesh.local_count(); ++b) {
    const auto box = forest.unit_box(mesh.place(b));
    BlockRecord& r = mine[static_cast<std::size_t>(b)];
    r.level = mesh.place(b).level;
    r.rank = rank;
    for (std::size_t a = 0; a < 3; ++a) {
      const double length = o.hi[a] - o.lo[a];
      r.origin[a] = o.lo[a] + length * box[a][0];
      r.spacing[a] = length * (box[a][1] - box[a][0]) / s.cells[a];
    }
  }
  const std::int64_t local = mesh.local_count();
  std::int64_t first = 0, total = 0;
  TESSERA_MPI_CHECK(MPI_Exscan(&local, &first, 1, MPI_INT64_T, MPI_SUM, comm));
  if (rank == 0) first = 0;  // MPI_Exscan leaves rank 0's result undefined
  TESSERA_MPI_CHECK(MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, comm));

  PlotFiles files;
  const std::filesystem::path dir(o.dir);
  files.data = (dir / (stem(o) + ".h5")).string();
  files.description = (dir / (stem(o) + ".xmf")).string();
  files.series = (dir / (o.prefix + ".xdmf")).string();
  // Hidden, and named after the step only: every rank must open the same file.
  const std::string tmp = (dir / ("." + stem(o) + ".h5.tmp")).string();

  detail::silence_hdf5_errors();
  int ok = write_data(comm, mesh, o, tmp, first, total, mine) ? 1 : 0;
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));

  // Rank 0 gathers the block records for the XML.
  constexpr int kDoubles = sizeof(BlockRecord) / sizeof(double);
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(static_cast<std::size_t>(ranks));
  const int count = static_cast<int>(local) * kDoubles;
  TESSERA_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<BlockRecord> all;
  if (rank == 0) {
    for (int r = 1; r < ranks; ++r)
      displs[static_cast<std::size_t>(r)] =
          displs[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
    all.resize(static_cast<std::size_t>(total));
  }
  TESSERA_MPI_CHECK(MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(),
                                displs.data(), MPI_DOUBLE, 0, comm));

  std::string error;
  if (rank == 0) {
    std::error_code ec;
    if (ok == 0) {
      error = fmt::format("writing {} failed", tmp);
      std::filesystem::remove(tmp, ec);
    } else {
      std::filesystem::rename(tmp, files.data, ec);
      if (ec) {
        error = fmt::format("cannot rename {} to {}: {}", tmp, files.data, ec.message());
        std::filesystem::remove(tmp, ec);
      }
    }
    if (error.empty()) {
      const std::string name = std::filesystem::path(files.data).filename().string();
      error =
          write_text_atomically(files.description, kHead + spatial_grid(o, s, name, all) + kTail);
    }
    if (error.empty()) {
      const std::string series = series_text(o, error);
      if (error.empty()) error = write_text_atomically(files.series, series);
    }
  }
  int length = static_cast<int>(error.size());
  TESSERA_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  error.resize(static_cast<std::size_t>(length));
  if (length > 0) TESSERA_MPI_CHECK(MPI_Bcast(error.data(), length, MPI_CHAR, 0, comm));
  if (!error.empty()) throw std::runtime_error(fmt::format("plot file {}: {}", files.data, error));
  files.field_bytes = total * static_cast<std::int64_t>(s.interior_cells() * sizeof(double)) *
                      static_cast<std::int64_t>(o.variables.size());
  files.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return files;
}

}  // namespace tessera
