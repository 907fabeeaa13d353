// CheckpointWriter: pack tasks, a barrier task and one main-thread write task per
// checkpoint (see the header for why the barrier comes before HDF5's collectives), and an
// I/O thread per checkpoint for the field data.
#include "tessera/io/checkpoint_writer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "io/block_checksum.hpp"
#include "io/checkpoint_directory.hpp"
#include "io/checkpoint_format.hpp"
#include "io/hdf5_objects.hpp"
#include "io/raw_data_file.hpp"
#include "tessera/base/check_mpi.hpp"

#ifndef TESSERA_VERSION
#define TESSERA_VERSION "unknown"
#endif
#ifndef TESSERA_GIT_COMMIT
#define TESSERA_GIT_COMMIT "unknown"
#endif

namespace tessera {

using detail::Hid;

struct CheckpointWriter::Pending {
  CheckpointHeader header;
  CheckpointBlocks blocks;
  std::vector<CheckpointField> fields;
  std::vector<double*> staging;                   // per field: local blocks x values
  std::vector<std::vector<std::uint64_t>> terms;  // per field: checksum term per block
  // Reduced over the ranks by the non-blocking all-reduces before the write task (see
  // submit): `sums` holds the datasets' checksums (/blocks, then the fields), the
  // header's rank_sums, each rank's first block (in its own slot, zero elsewhere) and
  // whether the previous checkpoint's data write failed; `maxima` the rank_maxima.
  std::vector<std::uint64_t> sums;
  std::vector<std::int64_t> maxima;
};

// A checkpoint whose file rank 0 created (and closed) and whose rows this rank's I/O
// thread is writing; the next write task, or wait(), publishes it (finish_in_flight).
struct CheckpointWriter::InFlight {
  struct RawWrite {
    std::string dataset;  // its path, for messages
    std::int64_t offset = 0;
    const void* data = nullptr;
    std::size_t bytes = 0;
  };
  std::string file_name, tmp, final_dir;
  std::vector<CheckpointPlace> places;  // this rank's rows of /blocks (written by `io`)
  std::vector<RawWrite> writes;
  // Old checkpoints rank 0 retired when it published the previous one: removed by `io`
  // after the data (unlinking a large file took 30-40 ms of the main thread).
  std::vector<std::string> retired;
  std::int64_t bytes = 0;  // field data of all ranks
  std::thread io;          // runs write_data; joined before the staging buffers are reused
  // Written by the I/O thread, read after the join.
  std::string error;
  double data_seconds = 0;
  std::int64_t direct_bytes = 0;

  // The I/O thread: plain POSIX writes (RawDataFile), no MPI and no HDF5 call, so it may
  // run beside the main thread (MPI is initialized FUNNELED, HDF5 is not thread-safe).
  void write_data() {
    const auto start = std::chrono::steady_clock::now();
    detail::RawDataFile raw(file_name);
    if (!raw.valid()) {
      error = "cannot open the file for the raw data";
    } else {
      for (const RawWrite& w : writes) {
        if (std::string failed = raw.write(w.offset, w.data, w.bytes); !failed.empty()) {
          error = fmt::format("writing dataset {} failed: {}", w.dataset, failed);
          break;
        }
      }
      // Here, not on the main thread: the journal commit that makes direct writes into
      // freshly allocated space durable is most of a flush's time.
      if (std::string failed = raw.sync(); error.empty() && !failed.empty())
        error = fmt::format("flushing the field data to disk failed: {}", failed);
    }
    direct_bytes = raw.direct_bytes();
    data_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    detail::remove_retired(retired);
  }
};

namespace {

// Datasets of at least this many bytes start on a direct-I/O boundary in the file.
constexpr hsize_t kAlignedAbove = detail::kDirectAlignment;

[[noreturn]] void write_failed(const std::string& file, const std::string& what) {
  throw std::runtime_error(fmt::format("checkpoint {}: {}", file, what));
}

Hid create_rows_dataset(hid_t parent, const std::string& name, hid_t type, std::int64_t rows,
                        std::int64_t width) {
  const hsize_t dims[2] = {static_cast<hsize_t>(rows), static_cast<hsize_t>(width)};
  Hid space(H5Screate_simple(2, dims, nullptr), H5Sclose);
  Hid create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  // Every element is written: no fill pass over the file first.
  H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER);
  H5Pset_alloc_time(create.get(), H5D_ALLOC_TIME_EARLY);
  return Hid(
      H5Dcreate2(parent, name.c_str(), type, space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
      H5Dclose);
}

// Rank 0's part of a write: creates `file` in directory `tmp` with its attributes and every
// dataset (/blocks, then the fields) allocated but not written, records each dataset's
// byte offset in `offsets`, and closes it. Returns an empty string or what failed.
std::string create_file(const CheckpointHeader& h, const CheckpointBlocks& blocks,
                        const std::vector<CheckpointField>& fields, const std::string& file,
                        const std::string& tmp, const std::vector<std::uint64_t>& checksums,
                        const nlohmann::json& rank_sums, const nlohmann::json& rank_maxima,
                        const nlohmann::json& partition, std::vector<std::int64_t>& offsets) {
  std::error_code ec;
  std::filesystem::create_directories(tmp, ec);
  if (!std::filesystem::is_directory(tmp))
    return fmt::format("cannot create directory {}: {}", tmp, ec.message());
  Hid access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_sec2(access.get());
  // Large datasets start on a direct-I/O boundary (see RawDataFile).
  H5Pset_alignment(access.get(), kAlignedAbove, detail::kDirectAlignment);
  Hid h5(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
  if (!h5.valid()) return "HDF5 cannot create the file";
  const hid_t root = h5.get();
  const bool ok =
      detail::write_attribute(root, "format", std::string(detail::kCheckpointFormat)) &&
      detail::write_attribute(root, "format_version", detail::kCheckpointFormatVersion) &&
      detail::write_attribute(root, "app", h.app) &&
      detail::write_attribute(root, "problem", h.problem.dump()) &&
      detail::write_attribute(root, "state", h.state.dump()) &&
      detail::write_attribute(root, "rank_sums", rank_sums.dump()) &&
      detail::write_attribute(root, "rank_maxima", rank_maxima.dump()) &&
      detail::write_attribute(root, "step", h.step) &&
      detail::write_attribute(root, "time", h.time) &&
      detail::write_attribute(root, "block_count", blocks.global_count) &&
      detail::write_attribute(root, "partition", partition.dump()) &&
      detail::write_attribute(root, "tessera_version", std::string(TESSERA_VERSION)) &&
      detail::write_attribute(root, "tessera_commit", std::string(TESSERA_GIT_COMMIT));
  if (!ok) return "writing the attributes failed";
  // Creates one dataset with its checksum and records where its bytes are.
  const auto create = [&](hid_t parent, const std::string& name, const std::string& path,
                          hid_t type, std::int64_t width, std::uint64_t checksum,
                          std::int64_t& offset) -> std::string {
    Hid data = create_rows_dataset(parent, name, type, blocks.global_count, width);
    if (!data.valid() || !detail::write_attribute(data.get(), "checksum", checksum))
      return fmt::format("creating dataset {} failed", path);
    const std::optional<std::int64_t> at = detail::contiguous_data_offset(data.get());
    if (!at) return fmt::format("dataset {}: HDF5 allocated no contiguous storage", path);
    offset = *at;
    return {};
  };
  if (std::string failed =
          create(root, "blocks", "/blocks", H5T_NATIVE_INT64, 4, checksums[0], offsets[0]);
      !failed.empty())
    return failed;
  Hid group(H5Gcreate2(root, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.valid()) return "creating group /fields failed";
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const CheckpointField& field = fields[f];
    if (std::string failed = create(
            group.get(), field.name, "/fields/" + field.name, H5T_NATIVE_DOUBLE,
            static_cast<std::int64_t>(field.values_per_block), checksums[f + 1], offsets[f + 1]);
        !failed.empty())
      return failed;
  }
  group.reset();
  if (!h5.reset()) return "closing the file failed";
  return {};
}

}  // namespace

// Uninitialized (the pack tasks overwrite it), aligned for direct I/O.
std::unique_ptr<double[], CheckpointWriter::StagingDeleter> CheckpointWriter::allocate_staging(
    std::size_t doubles) {
  const std::size_t a = detail::kDirectAlignment;
  const std::size_t bytes = (doubles * sizeof(double) + 2 * a - 1) / a * a;
  void* memory = std::aligned_alloc(a, bytes);
  if (memory == nullptr) throw std::bad_alloc();
  return std::unique_ptr<double[], StagingDeleter>(static_cast<double*>(memory));
}

CheckpointWriter::CheckpointWriter(Comm& comm, CheckpointOptions options)
    : comm_(comm), options_(std::move(options)) {
  TESSERA_MPI_CHECK(MPI_Comm_dup(comm.mpi(), &io_comm_));
  ready_ = comm.runtime().create_handle("checkpoint.ready");
}

CheckpointWriter::~CheckpointWriter() {
  // Publishing is collective: on a normal scope exit every rank gets here at the same
  // point, but while an exception propagates this rank may be alone, so the checkpoint
  // is left unfinished (step-N.tmp/, as after a crash).
  const bool unwinding = std::uncaught_exceptions() > 0;
  try {
    if (unwinding)
      comm_.runtime().wait_for(ready_);
    else
      wait();
  } catch (...) {  // NOLINT: a destructor cannot report; the app's own wait reports errors
  }
  if (in_flight_ && in_flight_->io.joinable()) in_flight_->io.join();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (io_comm_ != MPI_COMM_NULL && finalized == 0) MPI_Comm_free(&io_comm_);
}

void CheckpointWriter::wait() {
  comm_.runtime().wait_for(ready_);
  if (!in_flight_) return;
  if (in_flight_->io.joinable()) in_flight_->io.join();
  // Every rank learns whether any rank's data write failed.
  int failed = in_flight_->error.empty() ? 0 : 1;
  TESSERA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, io_comm_));
  std::unique_ptr<InFlight> done = settle_in_flight(failed != 0);
  publish(*done);
  detail::remove_retired(retired_);
  retired_.clear();
}

void CheckpointWriter::join_data_write() {
  // The write task of every earlier submit has run (so its I/O thread exists) once
  // ready_'s last writer completed.
  if (write_tasks_run_ < submitted_) comm_.runtime().wait_for(ready_);
  if (in_flight_ && in_flight_->io.joinable()) in_flight_->io.join();
}

std::unique_ptr<CheckpointWriter::InFlight> CheckpointWriter::settle_in_flight(bool any_failed) {
  // Every rank's I/O thread has written and fdatasync'ed its rows (rank 0's also the
  // metadata HDF5 wrote when it created and closed the file): unless a rank failed, the
  // file is complete on disk. No HDF5 call and no collective file close are left.
  std::unique_ptr<InFlight> c = std::move(in_flight_);
  if (c->io.joinable()) c->io.join();
  write_phases_["data"] += c->data_seconds;
  write_seconds_ += c->data_seconds;
  direct_bytes_ += c->direct_bytes;
  if (any_failed)
    write_failed(c->file_name,
                 c->error.empty() ? "another rank failed to write its data" : c->error);
  return c;
}

void CheckpointWriter::publish(const InFlight& c) {
  // Rank 0 makes the file durable and visible under its final name, then drops old
  // checkpoints.
  const auto start = std::chrono::steady_clock::now();
  int rank = 0;
  TESSERA_MPI_CHECK(MPI_Comm_rank(io_comm_, &rank));
  if (rank == 0) {
    detail::publish_checkpoint(c.file_name, c.tmp, c.final_dir);
    std::vector<std::string> retired = detail::prune_checkpoints(options_.dir, options_.keep);
    retired_.insert(retired_.end(), retired.begin(), retired.end());
  }
  const double publish =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_phases_["publish"] += publish;
  write_seconds_ += publish;
  ++written_;
  last_bytes_ = c.bytes;
}

void CheckpointWriter::submit(const CheckpointHeader& header, const CheckpointBlocks& blocks,
                              const std::vector<CheckpointField>& fields) {
  Runtime& runtime = comm_.runtime();
  // The staging buffers are about to be reused: the last checkpoint's data must be out.
  join_data_write();
  ++submitted_;
  auto pending = std::make_shared<Pending>();
  pending->header = header;
  pending->blocks = blocks;
  pending->fields = fields;
  const auto local = static_cast<std::size_t>(blocks.local_count());
  // The staging buffers are kept from one checkpoint to the next: a fresh allocation of
  // this size (and std::vector's zeroing) would fault in and zero every page again, in the
  // pack tasks, at every checkpoint.
  // Blocks of the last checkpoint's layout are ordered by the staging handles; a new
  // layout (the block count changed) waits for the last checkpoint.
  std::vector<std::size_t> layout;
  for (const CheckpointField& f : fields) layout.push_back(local * f.values_per_block);
  if (layout != staging_layout_) wait();
  staging_layout_ = layout;
  bool fits = staging_buffers_.size() >= fields.size();
  for (std::size_t f = 0; fits && f < fields.size(); ++f) fits = staging_capacity_[f] >= layout[f];
  if (!fits) {
    staging_buffers_.resize(std::max(staging_buffers_.size(), fields.size()));
    staging_capacity_.resize(staging_buffers_.size(), 0);
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::size_t need = local * fields[f].values_per_block;
      if (staging_capacity_[f] < need) {
        staging_buffers_[f] = allocate_staging(need);
        staging_capacity_[f] = need;
      }
    }
  }
  for (std::size_t f = 0; f < fields.size(); ++f) {
    // The rank's rows start at this byte offset from the (aligned) start of the dataset:
    // the staging data starts at the same offset from an aligned address, so that the
    // aligned part of the file range is also aligned in memory (direct I/O needs both).
    const auto row_bytes = fields[f].values_per_block * sizeof(double);
    const std::size_t shift =
        static_cast<std::size_t>(blocks.first) * row_bytes % detail::kDirectAlignment;
    pending->staging.push_back(staging_buffers_[f].get() + shift / sizeof(double));
    pending->terms.emplace_back(local, 0);
  }
  while (staging_.size() < local)
    staging_.push_back(runtime.create_handle(fmt::format("checkpoint.block[{}]", staging_.size())));

  std::vector<Access> accesses;
  std::vector<Handle> reads;
  for (std::size_t b = 0; b < local; ++b) {
    accesses.clear();
    for (const CheckpointField& f : fields) {
      reads.clear();
      f.reads(static_cast<std::int32_t>(b), reads);
      for (Handle h : reads) accesses.push_back(read(h));
    }
    accesses.push_back(write(staging_[b]));
    runtime.submit("checkpoint_pack", std::span<const Access>(accesses), [pending, b] {
      Pending& p = *pending;
      const std::int64_t curve = p.blocks.first + static_cast<std::int64_t>(b);
      for (std::size_t f = 0; f < p.fields.size(); ++f) {
        const std::size_t n = p.fields[f].values_per_block;
        double* out = p.staging[f] + b * n;
        p.fields[f].pack(static_cast<std::int32_t>(b), out);
        p.terms[f][b] = detail::block_checksum_term(out, n, curve);
      }
    });
  }
  // What the write task needs from every rank is reduced by non-blocking all-reduces,
  // posted once this rank's blocks are packed (the task below fills in this rank's part):
  // they complete once every rank's data is ready, so they are also the barrier before
  // any rank enters the write task's blocking broadcast, and the write task itself waits
  // for no other rank's reductions.
  int rank = 0, ranks = 1;
  TESSERA_MPI_CHECK(MPI_Comm_rank(io_comm_, &rank));
  TESSERA_MPI_CHECK(MPI_Comm_size(io_comm_, &ranks));
  const std::size_t datasets = fields.size() + 1;
  pending->sums.assign(datasets + header.rank_sums.size() + static_cast<std::size_t>(ranks) + 1, 0);
  pending->sums[datasets + header.rank_sums.size() + static_cast<std::size_t>(rank)] =
      static_cast<std::uint64_t>(blocks.first);
  pending->sums.back() = in_flight_ && !in_flight_->error.empty() ? 1 : 0;
  for (const auto& [name, value] : header.rank_maxima) pending->maxima.push_back(value);
  accesses.clear();
  for (std::size_t b = 0; b < local; ++b) accesses.push_back(read(staging_[b]));
  accesses.push_back(write(ready_));
  runtime.submit("checkpoint_packed", std::span<const Access>(accesses), [pending, datasets] {
    Pending& p = *pending;
    std::uint64_t& places = p.sums[0];
    for (std::size_t b = 0; b < p.blocks.places.size(); ++b)
      places += detail::block_checksum_term(p.blocks.places[b].data(), 4,
                                            p.blocks.first + static_cast<std::int64_t>(b));
    for (std::size_t f = 0; f < p.fields.size(); ++f)
      for (std::uint64_t t : p.terms[f]) p.sums[f + 1] += t;
    std::size_t i = datasets;
    for (const auto& [name, value] : p.header.rank_sums)
      p.sums[i++] = static_cast<std::uint64_t>(value);
  });
  comm_.iallreduce(ready_, pending->sums.data(), static_cast<int>(pending->sums.size()),
                   MPI_UINT64_T, MPI_SUM);
  if (!pending->maxima.empty())
    comm_.iallreduce(ready_, pending->maxima.data(), static_cast<int>(pending->maxima.size()),
                     MPI_INT64_T, MPI_MAX);
  accesses.clear();
  for (std::size_t b = 0; b < local; ++b) accesses.push_back(read(staging_[b]));
  accesses.push_back(readwrite(ready_));
  runtime.submit(
      "checkpoint_write", std::span<const Access>(accesses),
      [this, pending] { write_file(*pending); }, TaskAttributes(Priority::normal, {}, true));
}

void CheckpointWriter::write_file(Pending& p) {
  ++write_tasks_run_;
  const auto start = std::chrono::steady_clock::now();
  auto lap = start;
  // Adds the seconds since the last lap to phase `name` (write_phase_seconds()).
  const auto phase_done = [&](const char* name) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - lap).count();
    write_phases_[name] += s;
    write_seconds_ += s;
    lap = now;
  };
  int ranks = 1;
  TESSERA_MPI_CHECK(MPI_Comm_size(io_comm_, &ranks));
  int rank = 0;
  TESSERA_MPI_CHECK(MPI_Comm_rank(io_comm_, &rank));
  // The previous checkpoint's data had a whole interval to reach the disk; whether any
  // rank failed to write it came with this checkpoint's reductions. Rank 0 publishes it
  // after this checkpoint's file exists (below), so the other ranks do not wait for that.
  std::unique_ptr<InFlight> previous;
  if (in_flight_) previous = settle_in_flight(p.sums.back() != 0);
  detail::silence_hdf5_errors();
  const std::string final_dir = detail::step_directory(options_.dir, p.header.step);
  const std::string tmp = final_dir + ".tmp";
  const std::string file = (std::filesystem::path(tmp) / detail::kCheckpointFileName).string();

  // The reductions (submit): checksums of the datasets, the counters, the partition.
  const std::size_t datasets = p.fields.size() + 1;
  const std::vector<std::uint64_t> checksums(
      p.sums.begin(), p.sums.begin() + static_cast<std::ptrdiff_t>(datasets));
  nlohmann::json rank_sums = nlohmann::json::object(), rank_maxima = nlohmann::json::object();
  std::size_t i = datasets;
  for (const auto& [name, value] : p.header.rank_sums)
    rank_sums[name] = static_cast<std::int64_t>(p.sums[i++]);
  i = 0;
  for (const auto& [name, value] : p.header.rank_maxima) rank_maxima[name] = p.maxima[i++];
  // Which rank held which blocks (a restart on as many ranks keeps the partition).
  nlohmann::json partition = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r)
    partition.push_back(static_cast<std::int64_t>(
        p.sums[datasets + p.header.rank_sums.size() + static_cast<std::size_t>(r)]));
  partition.push_back(p.blocks.global_count);
  phase_done("reduce");  // decoding the reductions, and rank 0's wait for the previous data

  // Rank 0 alone creates the file, its attributes and every dataset (contiguous, allocated
  // at creation), with HDF5's serial POSIX driver, and closes it; the ranks learn the
  // datasets' offsets from one broadcast, and each rank's I/O thread writes its rows there
  // (below). Why not MPI-IO's collective create and close: they held every rank's main
  // thread (mg class A: 60-80 ms per checkpoint to create, 30-40 ms to flush and close)
  // while the replayed iteration graph waited; rank 0's serial create takes a few
  // milliseconds, and the other ranks wait for it only in the broadcast. Since HDF5 closed
  // the file before any raw byte is written, nothing HDF5 caches can overwrite them, and
  // the rank's fdatasync of its rows also covers the metadata on rank 0.
  std::vector<std::int64_t> offsets(datasets, -1);  // /blocks, then the fields
  std::string error;
  if (rank == 0)
    error = create_file(p.header, p.blocks, p.fields, file, tmp, checksums, rank_sums, rank_maxima,
                        partition, offsets);
  {
    int length = static_cast<int>(error.size());
    TESSERA_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, io_comm_));
    error.resize(static_cast<std::size_t>(length));
    if (length > 0) TESSERA_MPI_CHECK(MPI_Bcast(error.data(), length, MPI_CHAR, 0, io_comm_));
  }
  if (!error.empty()) write_failed(file, error);
  TESSERA_MPI_CHECK(
      MPI_Bcast(offsets.data(), static_cast<int>(datasets), MPI_INT64_T, 0, io_comm_));

  // The rows go straight from the staging buffers to the file (RawDataFile: direct I/O at
  // the offsets HDF5 allocated), each rank its own contiguous range of every dataset, on
  // an I/O thread: this task ends once the file exists, so the rank computes while the
  // bytes go to the disk, also in a replayed iteration graph (which starts only when every
  // earlier task completed). The next write task or wait() publishes the file. HDF5 never
  // sees these bytes. Collective buffering (MPI-IO) would route every byte through an
  // aggregator rank (on one node: one rank writing the whole file, after an extra copy);
  // measured, it doubled the CPU time of the write on the aggregator.
  auto c = std::make_unique<InFlight>();
  c->file_name = file;
  c->tmp = tmp;
  c->final_dir = final_dir;
  c->places = p.blocks.places;
  constexpr auto kPlaceBytes = static_cast<std::int64_t>(sizeof(CheckpointPlace));
  if (!c->places.empty())
    c->writes.push_back({"/blocks", offsets[0] + p.blocks.first * kPlaceBytes,
                         c->places.front().data(),
                         static_cast<std::size_t>(p.blocks.local_count() * kPlaceBytes)});
  for (std::size_t f = 0; f < p.fields.size(); ++f) {
    const auto width = static_cast<std::int64_t>(p.fields[f].values_per_block);
    const std::int64_t row_bytes = width * static_cast<std::int64_t>(sizeof(double));
    if (p.blocks.local_count() > 0)
      c->writes.push_back({"/fields/" + p.fields[f].name,
                           offsets[f + 1] + p.blocks.first * row_bytes, p.staging[f],
                           static_cast<std::size_t>(p.blocks.local_count() * row_bytes)});
    c->bytes += p.blocks.global_count * row_bytes;
  }
  phase_done("create");
  // Before this checkpoint's data: beside the I/O thread the publishing's fsyncs wait for
  // the disk behind the new rows (mg class A: publish 0.23-0.27 s over 4 checkpoints,
  // against 0.05-0.08 s before the data).
  if (previous) publish(*previous);
  c->retired = std::move(retired_);
  retired_.clear();
  InFlight& started = *c;
  in_flight_ = std::move(c);
  started.io = std::thread([&started] { started.write_data(); });
}

}  // namespace tessera
