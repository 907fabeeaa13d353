#pragma once
// CheckpointWriter: writes checkpoints as parallel HDF5 files (layer `io`), ordered by the
// data-flow engine (see docs/checkpoint.md for the file layout).
//
// submit() adds, after the tasks submitted so far: one task per local block that copies
// the block's fields to a staging buffer (read access: it runs after the step's last
// writer of the block and before the next step's first writer, on any thread, and
// computes the block's checksum term), a non-blocking barrier task, and one main-thread
// task in which rank 0 creates the file (HDF5, serial POSIX driver: attributes, datasets
// allocated, closed again) and broadcasts where the datasets' bytes are, and every rank
// hands its rows to an I/O thread (plain pwrite and fdatasync, no MPI, no HDF5). The
// barrier makes sure every rank has its data ready before any rank enters the task's
// blocking collectives (reductions, the broadcast), so the write cannot wait on a rank
// that itself waits for this rank's messages. Computing continues on other data
// meanwhile, also in a replayed iteration graph: the tasks complete once the file exists,
// not once its data is on disk.
//
// Atomic: the file goes to DIR/step-N.tmp/; the next checkpoint's write task, or wait(),
// waits for every rank's data to be on disk and renames the directory to DIR/step-N/; the
// newest `keep` complete checkpoints are kept. A crash at any moment leaves the previous
// complete checkpoint usable.

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/io/checkpoint_content.hpp"
#include "tessera/io/checkpoint_options.hpp"

namespace tessera {

class CheckpointWriter {
 public:
  /// Collective (duplicates the communicator of `comm`, a blocking MPI call): construct it
  /// where every rank is at the same point with no communication in flight, e.g. while
  /// setting up, not between submissions of a running step. Main thread. Creates nothing
  /// on disk until the first submit.
  CheckpointWriter(Comm& comm, CheckpointOptions options);
  /// wait(), so collective; while an exception propagates it only waits for the tasks and
  /// the I/O thread, and the last checkpoint stays an unfinished step-N.tmp/.
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  const CheckpointOptions& options() const { return options_; }

  /// Submits the write of one checkpoint (see above). Main thread, called by every rank
  /// in the same order. `header` and `blocks` are copied; the fields' pack and reads
  /// functions must stay callable until the write completes. Waits for the previous
  /// checkpoint's I/O thread (whose staging buffers it reuses). An I/O failure throws from
  /// the next write task (naming the file), so from the next runtime wait, or from wait().
  void submit(const CheckpointHeader& header, const CheckpointBlocks& blocks,
              const std::vector<CheckpointField>& fields);

  /// Waits until every submitted checkpoint is on disk and renamed. Main thread;
  /// collective (the ranks agree that the last file is complete): every rank calls it at
  /// the same point.
  void wait();

  /// Checkpoints completed so far on this rank, and the seconds their writing took: the
  /// write tasks, the I/O thread's data writes and the closing (not the time between).
  int written() const { return written_; }
  double write_seconds() const { return write_seconds_; }
  /// Those seconds by phase, on this rank: reduce (checksums, counters) and create (rank 0's
  /// file, attributes and datasets, the offsets' broadcast) in the write task, data (the I/O
  /// thread's writes and fdatasync), flush (agreeing that every rank's data is on disk) and
  /// publish (fsync, rename, pruning; rank 0) when the checkpoint is finished.
  const std::map<std::string, double>& write_phase_seconds() const { return write_phases_; }
  /// Bytes of field data in the last checkpoint (all ranks).
  std::int64_t last_bytes() const { return last_bytes_; }
  /// Bytes this rank wrote with direct I/O (bypassing the page cache) so far.
  std::int64_t direct_bytes() const { return direct_bytes_; }

 private:
  struct Pending;
  struct InFlight;
  struct StagingDeleter {  // staging memory comes from std::aligned_alloc
    void operator()(double* p) const { std::free(p); }
  };
  // Aligned for direct I/O, with room before the data to align it with its file offset.
  static std::unique_ptr<double[], StagingDeleter> allocate_staging(std::size_t doubles);
  void write_file(Pending& pending);
  // Waits (main thread) until the last checkpoint's I/O thread is done with the staging.
  void join_data_write();
  // Joins the in-flight checkpoint's I/O thread and takes it; throws (naming the file) if
  // `any_failed`, which every rank must agree on.
  std::unique_ptr<InFlight> settle_in_flight(bool any_failed);
  // Rank 0: flushes the checkpoint to disk, renames it to its final name, prunes.
  void publish(const InFlight& checkpoint);

  Comm& comm_;
  CheckpointOptions options_;
  MPI_Comm io_comm_ = MPI_COMM_NULL;
  std::vector<Handle> staging_;  // per local block, reused by later checkpoints
  std::vector<std::unique_ptr<double[], StagingDeleter>> staging_buffers_;  // per field, reused
  std::vector<std::size_t> staging_capacity_;  // doubles in each buffer
  std::vector<std::size_t> staging_layout_;    // doubles per field of the last checkpoint
  Handle ready_;                               // orders the checkpoints, and carries the barrier
  int written_ = 0;
  double write_seconds_ = 0;
  std::map<std::string, double> write_phases_;
  std::int64_t last_bytes_ = 0;
  std::int64_t direct_bytes_ = 0;
  std::unique_ptr<InFlight> in_flight_;  // created, its data being written (main thread)
  std::vector<std::string> retired_;     // pruned checkpoints not yet removed (rank 0)
  std::int64_t submitted_ = 0;           // submit() calls
  std::int64_t write_tasks_run_ = 0;     // write tasks started (main thread)
};

}  // namespace tessera
