#pragma once
// RawDataReader: reads a checkpoint's raw dataset bytes straight from the file at the byte
// offset HDF5 allocated for them (contiguous_data_offset), with pread on an ordinary
// descriptor, or with O_DIRECT where the range is not in the page cache (see
// CheckpointReader::read_field): the read side of RawDataFile. Why not H5Dread: through MPI-IO
// (OpenMPI's OMPIO) a warm read spends up to twice pread's time (docs/checkpoint.md), and the
// bytes take one path fewer. The page cache
// is kept (no O_DIRECT): a restart soon after a run finds the file there, and the kernel's
// read-ahead keeps the disk busy while the reader verifies and unpacks the previous piece.
// The read functions are const and may be called from several threads.

#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::detail {

class RawDataReader {
 public:
  /// Opens `path` read-only; valid() is false if it cannot be opened.
  explicit RawDataReader(const std::string& path);
  ~RawDataReader();
  RawDataReader(const RawDataReader&) = delete;
  RawDataReader& operator=(const RawDataReader&) = delete;
  bool valid() const { return fd_ >= 0; }

  /// The file's size in bytes (-1 if unknown): a range past it is a truncated file.
  std::int64_t size() const { return size_; }
  /// Tells the kernel that [offset, offset + bytes) will be read once, front to back
  /// (POSIX_FADV_SEQUENTIAL: a larger read-ahead window). Advice only.
  void expect_sequential(std::int64_t offset, std::int64_t bytes) const;
  /// Reads exactly `bytes` bytes at `offset` into `data`. Returns an empty string, or what
  /// failed (errno's text, or "end of file" when the file is shorter).
  std::string read(std::int64_t offset, void* data, std::size_t bytes) const;

  /// The fraction of [offset, offset + bytes) in the page cache (mincore), 0 if unknown.
  double resident_fraction(std::int64_t offset, std::int64_t bytes) const;
  /// Opens the file a second time with O_DIRECT; false where the file system refuses it.
  bool open_direct();
  /// The O_DIRECT descriptor (-1 before open_direct), for asynchronous reads (DirectReadQueue).
  int direct_descriptor() const { return direct_fd_; }
  /// With O_DIRECT (open_direct first): reads [offset, offset + bytes), both multiples of
  /// kDirectAlignment as is `data`, stopping early only at the end of the file, which
  /// must come after `at_least` bytes. Returns an empty string, or what failed.
  std::string read_direct(std::int64_t offset, void* data, std::size_t bytes,
                          std::size_t at_least) const;

 private:
  std::string path_;
  int fd_ = -1;
  int direct_fd_ = -1;
  std::int64_t size_ = -1;
};

}  // namespace tessera::detail
