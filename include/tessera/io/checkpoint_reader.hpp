#pragma once
// CheckpointReader: opens a checkpoint written by CheckpointWriter and reads it back in
// parallel (layer `io`), on any number of ranks. Every check fails the same way on every
// rank, with a CheckpointError naming the file and what is wrong: missing directory or
// file, an unfinished (.tmp) checkpoint, a file HDF5 cannot open (truncated), another app,
// a dataset whose checksum does not match its contents.

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/io/checkpoint_content.hpp"

namespace tessera {

class CheckpointReader {
 public:
  /// Collective. `restart` is a step directory or "latest" (the newest complete step-N/ in
  /// `checkpoint_dir`); the file must have been written by `app`. Reads the header.
  CheckpointReader(MPI_Comm comm, const std::string& restart, const std::string& checkpoint_dir,
                   const std::string& app);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  /// The HDF5 file (for messages).
  const std::string& file() const { return file_; }
  const CheckpointHeader& header() const { return header_; }
  std::int64_t global_block_count() const { return global_count_; }
  /// Ranks that wrote the checkpoint and their block ranges (ranks + 1 offsets).
  const std::vector<std::int64_t>& written_partition() const { return partition_; }

  /// Collective. Every block's place, in curve order, on every rank (checksum verified).
  std::vector<CheckpointPlace> read_places();
  /// Collective. Blocks [first, first + count) of field `name` (count * values_per_block
  /// doubles, the order pack wrote). The ranges of all ranks must cover every block once;
  /// the dataset's checksum is verified over all ranks.
  std::vector<double> read_field(const std::string& name, std::int64_t first, std::int64_t count,
                                 std::size_t values_per_block);
  /// The same without a buffer of the whole range: reads the blocks in pieces of a few MiB
  /// (at least four blocks) through reused buffers (from the disk with O_DIRECT, up to eight
  /// pieces in flight; from the page cache on the calling thread) and calls
  /// `unpack(i, values)` for block first + i, in order, on the calling thread. The checksum
  /// is verified at the end, so on a corrupted file `unpack` has seen the bad values before
  /// the CheckpointError is thrown.
  void read_field(const std::string& name, std::int64_t first, std::int64_t count,
                  std::size_t values_per_block,
                  const std::function<void(std::int64_t i, const double* values)>& unpack);

  /// Seconds this rank spent in read_places and read_field (each read_field timed from
  /// the moment all ranks have opened the dataset): reading, verifying, unpacking.
  double read_seconds() const { return read_seconds_; }
  /// read_field's time on this rank by phase: `read` (waiting for the bytes: the page
  /// cache's copy, or the disk), `verify` (the checksum), `unpack` (the app's callback).
  const std::map<std::string, double>& read_phase_seconds() const { return read_phases_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string file_;
  std::int64_t file_id_ = -1;  // an hid_t (HDF5 stays out of the public headers)
  CheckpointHeader header_;
  std::int64_t global_count_ = 0;
  std::vector<std::int64_t> partition_;
  double read_seconds_ = 0;
  std::map<std::string, double> read_phases_;
  // How read_field reads a range: "auto" (direct from the disk, buffered from the page
  // cache), "direct" or "buffered" (the environment variable TESSERA_CHECKPOINT_READ).
  std::string read_path_ = "auto";
  // The kernel's asynchronous I/O context of the direct reads (0: none yet), kept for every
  // field and closed by the destructor (closing waits for the kernel).
  std::uint64_t aio_context_ = 0;
  struct FreeDeleter {  // the buffer comes from std::aligned_alloc
    void operator()(unsigned char* p) const { std::free(p); }
  };
  // read_field's ring of pieces, kept from one field to the next; page-aligned (see
  // read_field).
  std::unique_ptr<unsigned char[], FreeDeleter> buffer_;
  std::size_t buffer_bytes_ = 0;
};

}  // namespace tessera
