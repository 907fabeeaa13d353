// CheckpointReader: every check ends in the same CheckpointError on every rank (a verdict
// that may differ between ranks is agreed on first), so a bad checkpoint never leaves some
// ranks waiting in a collective for others that gave up.
#include "tessera/io/checkpoint_reader.hpp"

#include <fmt/format.h>
#include <hdf5.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <new>
#include <optional>

#include "io/block_checksum.hpp"
#include "io/checkpoint_directory.hpp"
#include "io/checkpoint_format.hpp"
#include "io/direct_read_queue.hpp"
#include "io/hdf5_objects.hpp"
#include "io/raw_data_file.hpp"
#include "io/raw_data_reader.hpp"
#include "tessera/base/check_mpi.hpp"

namespace tessera {

using detail::Hid;

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// All ranks agree on one verdict: if any rank's `error` is set, every rank throws the
// message of the lowest such rank.
void agree(MPI_Comm comm, const std::string& error) {
  int rank = 0, size = 1;
  TESSERA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  TESSERA_MPI_CHECK(MPI_Comm_size(comm, &size));
  int first_failing = error.empty() ? size : rank;
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failing, 1, MPI_INT, MPI_MIN, comm));
  if (first_failing == size) return;
  std::string message = error;
  int length = static_cast<int>(message.size());
  TESSERA_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first_failing, comm));
  message.resize(static_cast<std::size_t>(length));
  TESSERA_MPI_CHECK(MPI_Bcast(message.data(), length, MPI_CHAR, first_failing, comm));
  throw CheckpointError("--restart", message);
}

std::string checksum_mismatch(const std::string& file, const std::string& dataset,
                              std::uint64_t stored, std::uint64_t computed) {
  return fmt::format(
      "{}: dataset {}: checksum mismatch (stored {:016x}, computed {:016x}): the file is "
      "corrupted",
      file, dataset, stored, computed);
}

// Reads rows [first, first + count) of a 2-D dataset (collectively when `transfer` says so).
bool read_rows(hid_t dataset, hid_t type, void* data, std::int64_t first, std::int64_t count,
               std::int64_t width, hid_t transfer) {
  const detail::RowSelection rows = detail::select_rows(dataset, first, count, width);
  if (!rows.valid()) return false;
  double nothing = 0;
  return H5Dread(dataset, type, rows.memory_space.get(), rows.file_space.get(), transfer,
                 data != nullptr ? data : &nothing) >= 0;
}

// The dataset's shape if it is 2-D with `width` columns of `rows` rows; else a message.
std::string check_shape(hid_t dataset, std::int64_t rows, std::int64_t width) {
  Hid space(H5Dget_space(dataset), H5Sclose);
  hsize_t dims[2] = {0, 0};
  if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 2 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2)
    return "not a 2-D dataset";
  if (static_cast<std::int64_t>(dims[0]) != rows || static_cast<std::int64_t>(dims[1]) != width)
    return fmt::format("shape {} x {}, expected {} x {}", dims[0], dims[1], rows, width);
  return {};
}

}  // namespace

CheckpointReader::CheckpointReader(MPI_Comm comm, const std::string& restart,
                                   const std::string& checkpoint_dir, const std::string& app) {
  TESSERA_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
  detail::silence_hdf5_errors();
  std::string error;
  // Checked before anything is read, the same on every rank (mpirun passes the environment).
  if (const char* path = std::getenv("TESSERA_CHECKPOINT_READ"); path != nullptr && *path != 0)
    read_path_ = path;
  if (read_path_ != "auto" && read_path_ != "direct" && read_path_ != "buffered")
    error = fmt::format("TESSERA_CHECKPOINT_READ={}: allowed values are auto, direct, buffered",
                        read_path_);
  agree(comm_, error);
  try {
    file_ = detail::resolve_restart_file(restart, checkpoint_dir);
  } catch (const CheckpointError& e) {
    error = e.what();
  }
  agree(comm_, error);

  Hid access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_mpio(access.get(), comm_, MPI_INFO_NULL);
  file_id_ = H5Fopen(file_.c_str(), H5F_ACC_RDONLY, access.get());
  if (file_id_ < 0)
    error = fmt::format("{}: HDF5 cannot open it (truncated, or not an HDF5 file)", file_);
  agree(comm_, error);

  const hid_t root = file_id_;
  std::string format, problem, state, sums, maxima, partition;
  std::int64_t version = 0;
  const auto missing = [&](const char* what) {
    return fmt::format("{}: not a tessera checkpoint (attribute '{}' missing or unreadable)", file_,
                       what);
  };
  if (!detail::read_attribute(root, "format", format) || format != detail::kCheckpointFormat)
    error = missing("format");
  else if (!detail::read_attribute(root, "format_version", version) ||
           version != detail::kCheckpointFormatVersion)
    error = fmt::format("{}: checkpoint format version {} (this build reads version {})", file_,
                        version, detail::kCheckpointFormatVersion);
  else if (!detail::read_attribute(root, "app", header_.app))
    error = missing("app");
  else if (header_.app != app)
    error = fmt::format("{}: a checkpoint of app '{}', not of '{}'", file_, header_.app, app);
  else if (!detail::read_attribute(root, "problem", problem))
    error = missing("problem");
  else if (!detail::read_attribute(root, "state", state))
    error = missing("state");
  else if (!detail::read_attribute(root, "rank_sums", sums))
    error = missing("rank_sums");
  else if (!detail::read_attribute(root, "rank_maxima", maxima))
    error = missing("rank_maxima");
  else if (!detail::read_attribute(root, "step", header_.step))
    error = missing("step");
  else if (!detail::read_attribute(root, "time", header_.time))
    error = missing("time");
  else if (!detail::read_attribute(root, "block_count", global_count_))
    error = missing("block_count");
  else if (!detail::read_attribute(root, "partition", partition))
    error = missing("partition");
  if (error.empty()) {
    try {
      header_.problem = nlohmann::json::parse(problem);
      header_.state = nlohmann::json::parse(state);
      header_.rank_sums = nlohmann::json::parse(sums).get<std::map<std::string, std::int64_t>>();
      header_.rank_maxima =
          nlohmann::json::parse(maxima).get<std::map<std::string, std::int64_t>>();
      partition_ = nlohmann::json::parse(partition).get<std::vector<std::int64_t>>();
    } catch (const std::exception& e) {
      error = fmt::format("{}: an attribute is not valid JSON: {}", file_, e.what());
    }
  }
  agree(comm_, error);
}

CheckpointReader::~CheckpointReader() {
  detail::DirectReadQueue::close_context(aio_context_);
  if (file_id_ >= 0) H5Fclose(file_id_);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && finalized == 0) MPI_Comm_free(&comm_);
}

std::vector<CheckpointPlace> CheckpointReader::read_places() {
  const auto start = Clock::now();
  std::vector<CheckpointPlace> places(static_cast<std::size_t>(global_count_));
  std::string error;
  Hid dataset(H5Dopen2(file_id_, "blocks", H5P_DEFAULT), H5Dclose);
  std::uint64_t stored = 0;
  if (!dataset.valid()) {
    error = fmt::format("{}: dataset /blocks missing", file_);
  } else if (std::string shape = check_shape(dataset.get(), global_count_, 4); !shape.empty()) {
    error = fmt::format("{}: dataset /blocks: {}", file_, shape);
  } else if (!detail::read_attribute(dataset.get(), "checksum", stored)) {
    error = fmt::format("{}: dataset /blocks: checksum attribute missing", file_);
  } else if (!read_rows(dataset.get(), H5T_NATIVE_INT64, places.data(), 0, global_count_, 4,
                        H5P_DEFAULT)) {
    error = fmt::format("{}: dataset /blocks cannot be read (truncated file?)", file_);
  } else {
    std::uint64_t computed = 0;
    for (std::size_t b = 0; b < places.size(); ++b)
      computed += detail::block_checksum_term(places[b].data(), 4, static_cast<std::int64_t>(b));
    if (computed != stored) error = checksum_mismatch(file_, "/blocks", stored, computed);
  }
  agree(comm_, error);
  read_seconds_ += seconds(start, Clock::now());
  return places;
}

std::vector<double> CheckpointReader::read_field(const std::string& name, std::int64_t first,
                                                 std::int64_t count, std::size_t values_per_block) {
  std::vector<double> values(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)) *
                             values_per_block);
  read_field(name, first, count, values_per_block, [&](std::int64_t i, const double* block) {
    std::copy(block, block + values_per_block,
              values.begin() + static_cast<std::ptrdiff_t>(i * values_per_block));
  });
  return values;
}

void CheckpointReader::read_field(
    const std::string& name, std::int64_t first, std::int64_t count, std::size_t values_per_block,
    const std::function<void(std::int64_t i, const double* values)>& unpack) {
  const auto width = static_cast<std::int64_t>(values_per_block);
  const std::string path = "/fields/" + name;
  std::string error;
  Hid dataset(H5Dopen2(file_id_, path.c_str(), H5P_DEFAULT), H5Dclose);
  std::uint64_t stored = 0;
  if (!dataset.valid()) {
    error = fmt::format("{}: dataset {} missing", file_, path);
  } else if (std::string shape = check_shape(dataset.get(), global_count_, width); !shape.empty()) {
    error = fmt::format("{}: dataset {}: {}", file_, path, shape);
  } else if (!detail::read_attribute(dataset.get(), "checksum", stored)) {
    error = fmt::format("{}: dataset {}: checksum attribute missing", file_, path);
  } else if (first < 0 || count < 0 || first + count > global_count_) {
    error = fmt::format("{}: blocks {}..{} requested of {}", file_, first, first + count,
                        global_count_);
  }
  agree(comm_, error);
  // Timed from here: every rank has come this far (the agreement is an allreduce), so a
  // rank that finished setting up early does not count its wait for the others.
  const auto start = Clock::now();
  // Each rank reads its own contiguous range of the file in pieces of about 2 MiB and at
  // least four blocks, through one reused buffer (a ring that asynchronous direct reads
  // fill ahead: DirectReadQueue), so that each piece is checked and unpacked while it is in
  // the CPU cache; four blocks because the checksum hashes four blocks side by side. A
  // buffer of the whole range costs more than the read (the kernel faults in and zeroes
  // every page). Raw bytes come with pread at the dataset's offset (RawDataReader says why
  // not H5Dread); a dataset without an offset is read with H5Dread. No WILLNEED advice for
  // the whole range: it slows the buffered read (docs/checkpoint.md, Performance).
  const std::int64_t row_bytes = width * static_cast<std::int64_t>(sizeof(double));
  const std::optional<std::int64_t> data_offset = detail::contiguous_data_offset(dataset.get());
  const std::int64_t range_offset = data_offset.value_or(0) + first * row_bytes;
  std::optional<detail::RawDataReader> raw;
  if (data_offset && count > 0) {
    raw.emplace(file_);
    if (!raw->valid())
      error = fmt::format("{}: cannot be opened for reading", file_);
    else if (raw->size() < range_offset + count * row_bytes)
      error = fmt::format(
          "{}: dataset {} cannot be read (truncated file: {} bytes, its data end "
          "at byte {})",
          file_, path, raw->size(), data_offset.value_or(0) + global_count_ * row_bytes);
  }
  // A range mostly not in the page cache is read with O_DIRECT, up to eight pieces in
  // flight (DirectReadQueue says why so many), into a ring in huge pages, so that a piece
  // is one or two requests of the disk (a buffer in scattered 4 KiB pages is split into
  // requests of at most 1016 KiB); 2 MiB pieces because the ring's first touch costs, and
  // not buffered, because fresh page-cache pages cost more than the disk. A cached range
  // is copied out of the page cache by the main thread between the checks. Figures:
  // docs/checkpoint.md, Performance, "read, cold".
  // TESSERA_CHECKPOINT_READ=direct|buffered overrides the choice (read_path_).
  bool direct = false;
  if (raw && error.empty()) {
    direct =
        read_path_ == "direct" ||
        (read_path_ == "auto" && raw->resident_fraction(range_offset, count * row_bytes) < 0.5);
    if (direct && aio_context_ == 0) aio_context_ = detail::DirectReadQueue::open_context();
    // Buffered where the file system refuses O_DIRECT or the kernel offers no AIO context.
    direct = direct && aio_context_ != 0 && raw->open_direct();
    if (!direct) raw->expect_sequential(range_offset, count * row_bytes);
  }
  const std::int64_t piece = std::max<std::int64_t>(4, (2 << 20) / row_bytes);
  const auto piece_bytes = static_cast<std::size_t>(std::min(piece, count) * row_bytes);
  // Pieces in flight ahead of the checksum and unpack: eight, fewer of large pieces (rows
  // over 768 KiB), the ring at most about 24 MiB.
  const int depth = direct ? static_cast<int>(std::clamp<std::int64_t>(
                                 (24 << 20) / static_cast<std::int64_t>(piece_bytes), 2,
                                 detail::DirectReadQueue::kMaxDepth))
                           : 1;
  // Page-aligned: the kernel's copy out of the page cache into a buffer 16 bytes off a
  // page boundary (where malloc puts a large block) runs at half the speed; direct reads
  // need it. For direct reads in huge pages where the kernel has them (above):
  // 2 MiB-aligned, advised. (A ring of direct reads is larger than a buffered read's
  // buffer, so a buffer allocated for buffered reads is never reused for direct ones.)
  const std::size_t huge_page = 2 << 20;
  const std::size_t ring_bytes =
      (detail::DirectReadQueue::slot_bytes(piece_bytes) * static_cast<std::size_t>(depth) +
       huge_page - 1) /
      huge_page * huge_page;
  if (buffer_bytes_ < ring_bytes) {
    buffer_.reset();
    buffer_.reset(static_cast<unsigned char*>(std::aligned_alloc(huge_page, ring_bytes)));
    if (!buffer_) throw std::bad_alloc();
    if (direct) (void)::madvise(buffer_.get(), ring_bytes, MADV_HUGEPAGE);
    buffer_bytes_ = ring_bytes;
  }
  std::vector<std::uint64_t> terms(static_cast<std::size_t>(std::min(piece, count)));
  std::optional<detail::DirectReadQueue> queue;
  if (direct)
    queue.emplace(aio_context_, *raw, range_offset, count * row_bytes, piece_bytes, buffer_.get(),
                  depth);
  Hid transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_INDEPENDENT);
  // The checksum over all ranks' blocks; every block must have been read exactly once.
  std::uint64_t sums[2] = {0, static_cast<std::uint64_t>(count)};
  for (std::int64_t done = 0; done < count && error.empty(); done += piece) {
    const std::int64_t n = std::min(piece, count - done);
    const auto t0 = Clock::now();
    const double* values = nullptr;
    if (queue) {
      detail::DirectReadQueue::Piece got = queue->next();
      if (!got.error.empty()) {
        error = fmt::format("{}: dataset {} cannot be read ({})", file_, path, got.error);
        break;
      }
      values = reinterpret_cast<const double*>(got.data);
    } else if (raw) {
      auto* buffer = reinterpret_cast<double*>(buffer_.get());
      if (std::string failed = raw->read(range_offset + done * row_bytes, buffer,
                                         static_cast<std::size_t>(n * row_bytes));
          !failed.empty()) {
        error = fmt::format("{}: dataset {} cannot be read ({})", file_, path, failed);
        break;
      }
      values = buffer;
    } else {
      auto* buffer = reinterpret_cast<double*>(buffer_.get());
      if (!read_rows(dataset.get(), H5T_NATIVE_DOUBLE, buffer, first + done, n, width,
                     transfer.get())) {
        error = fmt::format("{}: dataset {} cannot be read (truncated file?)", file_, path);
        break;
      }
      values = buffer;
    }
    const auto t1 = Clock::now();
    detail::block_checksum_terms(values, values_per_block, static_cast<std::size_t>(n),
                                 first + done, terms.data());
    const auto t2 = Clock::now();
    for (std::int64_t b = 0; b < n; ++b) {
      sums[0] += terms[static_cast<std::size_t>(b)];
      unpack(done + b, values + b * width);
    }
    const auto t3 = Clock::now();
    read_phases_["read"] += seconds(t0, t1);
    read_phases_["verify"] += seconds(t1, t2);
    read_phases_["unpack"] += seconds(t2, t3);
  }
  queue.reset();
  agree(comm_, error);
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UINT64_T, MPI_SUM, comm_));
  if (sums[1] != static_cast<std::uint64_t>(global_count_))
    error = fmt::format("{}: dataset {}: the ranks read {} blocks of {}", file_, path, sums[1],
                        global_count_);
  else if (sums[0] != stored)
    error = checksum_mismatch(file_, path, stored, sums[0]);
  agree(comm_, error);
  read_seconds_ += seconds(start, Clock::now());
}

}  // namespace tessera
