#pragma once
// RawDataFile: writes a checkpoint's raw dataset bytes straight to the file at the byte
// offsets HDF5 allocated for them (H5Dget_offset of a contiguous dataset), with O_DIRECT
// where the file system, the offset and the memory allow it. Why: on one node the MPI-IO
// path writes through the page cache, where two ranks take the inode lock in turn and the
// kernel throttles a writer of many dirty pages to the disk's pace anyway; direct I/O
// moves the bytes from the staging buffer to the disk once, and the fsync that follows has
// only HDF5's metadata left to flush. The file stays an ordinary HDF5 file.
// Main thread only, like every HDF5 call of the checkpoint code.

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tessera::detail {

/// Offsets and lengths of direct transfers are multiples of this, and so are the memory
/// addresses (4 KiB: the largest logical block size of common disks).
inline constexpr std::size_t kDirectAlignment = 4096;

/// The byte offset in the file of a dataset's data if it is contiguous and allocated
/// (checkpoint datasets are: contiguous layout, early allocation); nullopt otherwise.
std::optional<std::int64_t> contiguous_data_offset(hid_t dataset);

class RawDataFile {
 public:
  /// Opens `path` (which must exist) for writing twice: with O_DIRECT where the file
  /// system supports it, and buffered for the unaligned head and tail of a range.
  /// valid() is false if the file cannot be opened at all.
  explicit RawDataFile(const std::string& path);
  ~RawDataFile();
  RawDataFile(const RawDataFile&) = delete;
  RawDataFile& operator=(const RawDataFile&) = delete;
  bool valid() const { return buffered_ >= 0; }

  /// Writes `bytes` bytes at file offset `offset`: the part whose file offset and memory
  /// address are both kDirectAlignment-aligned with O_DIRECT, the rest buffered. Returns
  /// an empty string, or what failed (errno's text). Durable only after a later fsync.
  std::string write(std::int64_t offset, const void* data, std::size_t bytes);
  /// fdatasync: the bytes written so far, and the file system's record of where they are
  /// (direct writes into space HDF5 allocated still need it), are on the disk. Returns an
  /// empty string or errno's text.
  std::string sync();
  /// Bytes written with O_DIRECT so far (the rest went through the page cache).
  std::int64_t direct_bytes() const { return direct_bytes_; }

 private:
  // 0 or the errno of the failed pwrite.
  static int write_all(int fd, std::int64_t offset, const unsigned char* data, std::size_t bytes);
  int direct_ = -1;
  int buffered_ = -1;
  std::int64_t direct_bytes_ = 0;
};

}  // namespace tessera::detail
