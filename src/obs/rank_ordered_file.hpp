#pragma once
// One output file written by all ranks at once, in rounds: each round every rank hands in
// a piece of text (possibly empty) and writes it itself at its offset with MPI-IO, so no
// rank funnels the others' text through its memory, the file-system copies run in
// parallel, and a writer can format into one reused buffer instead of a file-sized one
// (whose fresh pages each cost a fault). In a simulation (SimGrid SMPI, whose hosts have
// no disks for MPI-IO) every rank lives in the simulating process and writes with POSIX
// pwrite at the same offsets instead.

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tessera::obs {

/// The file holds the pieces of round 1 in rank order, then those of round 2, and so on.
/// All members are collective over the communicator and called from the main thread.
/// Errors: every rank throws std::runtime_error "<label>: cannot write '<path>': <reason>"
/// (a rank whose own I/O succeeded gives "failed on another rank" as the reason), and the
/// file does not appear.
class RankOrderedFile {
 public:
  /// Rank 0 creates the file under a temporary name (so a bad path fails with the
  /// system's reason before anything is written); every rank opens it.
  RankOrderedFile(std::string path, std::string label, MPI_Comm comm);
  /// Closes and removes the temporary file unless commit() succeeded.
  ~RankOrderedFile();
  RankOrderedFile(const RankOrderedFile&) = delete;
  RankOrderedFile& operator=(const RankOrderedFile&) = delete;

  /// Appends every rank's `pieces` (one after the other), in rank order, after everything
  /// written before. `more`: whether this rank has more to write. Returns whether any
  /// rank has more.
  bool append_round(std::span<const std::string_view> pieces, bool more);
  /// As above, with one piece.
  bool append_round(std::string_view piece, bool more) { return append_round({&piece, 1}, more); }

  /// Closes the file and renames it to its path.
  void commit();

 private:
  void agree_or_throw();
  // The shared file's I/O: MPI-IO, or POSIX in an SMPI build. Each sets error_ on failure.
  void open_shared();
  void write_at(std::uint64_t offset, const char* data, std::size_t bytes);
  void close_shared();

  std::string path_;
  std::string label_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::string temporary_;
#ifdef TESSERA_SMPI
  int fd_ = -1;
#else
  MPI_File file_ = MPI_FILE_NULL;
#endif
  std::uint64_t written_ = 0;  // bytes of all ranks in earlier rounds
  std::string error_;          // this rank's first I/O error, "" if none
  bool committed_ = false;
};

}  // namespace tessera::obs
