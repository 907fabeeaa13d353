// write_plot_file: rank 0 creates the HDF5 file (serial driver: attributes, /blocks, the
// field datasets allocated contiguously but not written) and closes it; every rank writes
// its rows of every field at the offsets HDF5 allocated (RawDataFile, as checkpoints do)
// and flushes them; rank 0 renames the file and writes the XDMF description and the series.
// Why not MPI-IO's collective writes: on one node they reached 0.1-0.15x dd for 84 MB
// (OMPIO or ROMIO, collective or independent), against plain pwrite's dd speed, and every
// small collective metadata step costs both ranks a scheduling round under load.
#include "tessera/io/plot_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "tessera/base/check_mpi.hpp"
#include "io/hdf5_objects.hpp"
#include "io/raw_data_file.hpp"

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

// Creates dataset `name` of `type` with `dims`, contiguous, storage allocated at creation
// and no fill (every element is written).
Hid create_dataset(hid_t parent, const char* name, hid_t type, const std::vector<hsize_t>& dims) {
  Hid space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Hid create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_layout(create.get(), H5D_CONTIGUOUS);
  H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER);
  H5Pset_alloc_time(create.get(), H5D_ALLOC_TIME_EARLY);
  return Hid(H5Dcreate2(parent, name, type, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
             H5Dclose);
}

template <class T>
bool write_array_attribute(hid_t object, const char* name, hid_t type,
                           const std::array<T, 3>& value) {
  const hsize_t n = 3;
  Hid space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hid attr(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return attr.valid() && H5Awrite(attr.get(), type, value.data()) >= 0;
}

// Rank 0: creates the HDF5 file at `path` with its attributes and /blocks (from `all`, every
// block), allocates /fields/<name> for every variable and records its byte offset in
// `offsets`, and closes the file. Returns "" or what failed.
std::string create_file(const AmrMesh& mesh, const PlotOutput& o, const std::string& path,
                        const std::vector<BlockRecord>& all, std::vector<std::int64_t>& offsets) {
  const BlockShape& s = mesh.shape();
  Hid access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_sec2(access.get());
  // Field datasets start on a direct-I/O boundary (see RawDataFile).
  H5Pset_alignment(access.get(), detail::kDirectAlignment, detail::kDirectAlignment);
  Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
  if (!file.valid()) return "HDF5 cannot create the file";
  const hid_t root = file.get();
  const auto total = static_cast<std::int64_t>(all.size());
  const std::array<std::int64_t, 3> cells{s.cells[0], s.cells[1], s.cells[2]};
  const bool ok =
      detail::write_attribute(root, "format", std::string(kFormat)) &&
      detail::write_attribute(root, "format_version", kFormatVersion) &&
      detail::write_attribute(root, "step", o.step) &&
      detail::write_attribute(root, "time", o.time) &&
      detail::write_attribute(root, "dim", static_cast<std::int64_t>(mesh.forest().dim())) &&
      detail::write_attribute(root, "block_count", total) &&
      write_array_attribute(root, "block_cells", H5T_NATIVE_INT64, cells) &&
      write_array_attribute(root, "lo", H5T_NATIVE_DOUBLE, o.lo) &&
      write_array_attribute(root, "hi", H5T_NATIVE_DOUBLE, o.hi);
  if (!ok) return "writing the attributes failed";
  const auto blocks = static_cast<hsize_t>(total);
  {
    Hid group(H5Gcreate2(root, "blocks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!group.valid()) return "creating group /blocks failed";
    std::vector<std::int32_t> level, rank;
    std::vector<double> origin, spacing;
    for (const BlockRecord& r : all) {
      level.push_back(static_cast<std::int32_t>(r.level));
      rank.push_back(static_cast<std::int32_t>(r.rank));
      origin.insert(origin.end(), r.origin.begin(), r.origin.end());
      spacing.insert(spacing.end(), r.spacing.begin(), r.spacing.end());
    }
    const auto one = [&](const char* name, hid_t type, std::vector<hsize_t> dims,
                         const void* data) -> std::string {
      Hid d = create_dataset(group.get(), name, type, dims);
      if (!d.valid() ||
          (total > 0 && H5Dwrite(d.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0))
        return fmt::format("writing /blocks/{} failed", name);
      return {};
    };
    for (std::string failed : {one("level", H5T_NATIVE_INT32, {blocks}, level.data()),
                               one("rank", H5T_NATIVE_INT32, {blocks}, rank.data()),
                               one("origin", H5T_NATIVE_DOUBLE, {blocks, 3}, origin.data()),
                               one("spacing", H5T_NATIVE_DOUBLE, {blocks, 3}, spacing.data())})
      if (!failed.empty()) return failed;
  }
  Hid group(H5Gcreate2(root, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.valid()) return "creating group /fields failed";
  // Per block [z][y][x], x fastest (C order, as h5py and XDMF read it).
  const std::vector<hsize_t> dims{blocks, static_cast<hsize_t>(s.cells[2]),
                                  static_cast<hsize_t>(s.cells[1]),
                                  static_cast<hsize_t>(s.cells[0])};
  for (std::size_t f = 0; f < o.variables.size(); ++f) {
    const std::string& name = o.variables[f].name;
    Hid d = create_dataset(group.get(), name.c_str(), H5T_NATIVE_DOUBLE, dims);
    if (!d.valid()) return fmt::format("creating /fields/{} failed", name);
    if (total == 0) continue;
    const std::optional<std::int64_t> at = detail::contiguous_data_offset(d.get());
    if (!at) return fmt::format("/fields/{}: HDF5 allocated no contiguous storage", name);
    offsets[f] = *at;
  }
  group.reset();
  if (!file.reset()) return "closing the file failed";
  return {};
}

// Every rank: writes its rows (blocks [first, first + local count)) of every field at
// `offsets` into the file rank 0 created, and flushes them to disk. Cells are read through
// the mesh's BlockLayout::index, whatever order the blocks store them in. Returns "" or what
// failed.
std::string write_rows(AmrMesh& mesh, const PlotOutput& o, const std::string& path,
                       std::int64_t first, const std::vector<std::int64_t>& offsets) {
  const BlockShape& s = mesh.shape();
  const BlockLayout& l = mesh.layout();
  const std::int32_t local = mesh.local_block_count();
  if (local == 0) return {};
  detail::RawDataFile raw(path);
  if (!raw.valid()) return "cannot open the file for the cell data";
  const std::size_t cells = s.interior_cells();
  const std::size_t row_bytes = cells * sizeof(double);
  // Staging aligned for direct I/O, with room to start the data at the same offset from a
  // 4 KiB boundary as its place in the file (direct I/O needs both aligned).
  const std::size_t a = detail::kDirectAlignment;
  const std::size_t bytes = (static_cast<std::size_t>(local) * row_bytes + 2 * a - 1) / a * a;
  std::unique_ptr<double, void (*)(void*)> staging(
      static_cast<double*>(std::aligned_alloc(a, bytes)), std::free);
  if (!staging) return "cannot allocate the staging buffer";
  for (std::size_t f = 0; f < o.variables.size(); ++f) {
    const int var = o.variables[f].var;
    const std::int64_t at = offsets[f] + first * static_cast<std::int64_t>(row_bytes);
    double* out = staging.get() + static_cast<std::size_t>(at) % a / sizeof(double);
    const double* begin = out;
    for (LocalBlockIndex b = 0; b < local; ++b) {
      const double* data = mesh.data(b);
      for (int k = 0; k < s.cells[2]; ++k)
        for (int j = 0; j < s.cells[1]; ++j)
          for (int i = 0; i < s.cells[0]; ++i)
            *out++ = data[l.index(var, i, j, k)];
    }
    if (std::string failed = raw.write(at, begin, static_cast<std::size_t>(local) * row_bytes);
        !failed.empty())
      return fmt::format("writing /fields/{} failed: {}", o.variables[f].name, failed);
  }
  if (std::string failed = raw.sync(); !failed.empty())
    return fmt::format("flushing the cell data to disk failed: {}", failed);
  return {};
}

// Broadcasts rank 0's `text` (an error or "") to every rank.
void broadcast(MPI_Comm comm, std::string& text) {
  int length = static_cast<int>(text.size());
  TESSERA_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  text.resize(static_cast<std::size_t>(length));
  if (length > 0) TESSERA_MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm));
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

  std::vector<BlockRecord> mine(static_cast<std::size_t>(mesh.local_block_count()));
  for (LocalBlockIndex b = 0; b < mesh.local_block_count(); ++b) {
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
  const std::int64_t local = mesh.local_block_count();
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
  const std::string tmp = (dir / fmt::format(".{}.h5.tmp", stem(o))).string();

  // Rank 0 gathers the block records: for /blocks and the XML.
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
  std::vector<std::int64_t> offsets(o.variables.size(), 0);
  if (rank == 0) {
    detail::silence_hdf5_errors();
    error = create_file(mesh, o, tmp, all, offsets);
  }
  broadcast(comm, error);
  if (error.empty()) {
    TESSERA_MPI_CHECK(
        MPI_Bcast(offsets.data(), static_cast<int>(offsets.size()), MPI_INT64_T, 0, comm));
    std::string failed = write_rows(mesh, o, tmp, first, offsets);
    // Every rank learns whether any rank failed; rank 0 names the first that did.
    int bad = failed.empty() ? ranks : rank;
    TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, comm));
    if (bad < ranks) {
      if (bad != 0 && rank == bad) {
        int length = static_cast<int>(failed.size());
        TESSERA_MPI_CHECK(MPI_Send(&length, 1, MPI_INT, 0, 0, comm));
        TESSERA_MPI_CHECK(MPI_Send(failed.data(), length, MPI_CHAR, 0, 0, comm));
      } else if (bad != 0 && rank == 0) {
        int length = 0;
        TESSERA_MPI_CHECK(MPI_Recv(&length, 1, MPI_INT, bad, 0, comm, MPI_STATUS_IGNORE));
        failed.resize(static_cast<std::size_t>(length));
        TESSERA_MPI_CHECK(
            MPI_Recv(failed.data(), length, MPI_CHAR, bad, 0, comm, MPI_STATUS_IGNORE));
      }
      if (rank == 0) error = fmt::format("rank {}: {}", bad, failed);
    }
  }
  if (rank == 0) {
    std::error_code ec;
    if (!error.empty()) {
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
  broadcast(comm, error);
  if (!error.empty()) throw std::runtime_error(fmt::format("plot file {}: {}", files.data, error));
  files.field_bytes = total * static_cast<std::int64_t>(s.interior_cells() * sizeof(double)) *
                      static_cast<std::int64_t>(o.variables.size());
  files.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return files;
}

}  // namespace tessera
