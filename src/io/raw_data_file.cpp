#include "io/raw_data_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tessera::detail {

std::optional<std::int64_t> contiguous_data_offset(hid_t dataset) {
  const hid_t create = H5Dget_create_plist(dataset);
  if (create < 0) return std::nullopt;
  const bool contiguous = H5Pget_layout(create) == H5D_CONTIGUOUS;
  H5Pclose(create);
  if (!contiguous) return std::nullopt;
  const haddr_t offset = H5Dget_offset(dataset);
  if (offset == HADDR_UNDEF) return std::nullopt;
  return static_cast<std::int64_t>(offset);
}

RawDataFile::RawDataFile(const std::string& path) {
  buffered_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
#ifdef O_DIRECT
  // Refused (EINVAL) by file systems without direct I/O: then every byte goes buffered.
  if (buffered_ >= 0) direct_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_DIRECT);
#endif
}

RawDataFile::~RawDataFile() {
  if (direct_ >= 0) ::close(direct_);
  if (buffered_ >= 0) ::close(buffered_);
}

int RawDataFile::write_all(int fd, std::int64_t offset, const unsigned char* data,
                           std::size_t bytes) {
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd, data, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    data += n;
    offset += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return 0;
}

std::string RawDataFile::sync() {
  while (::fdatasync(buffered_) != 0) {
    if (errno != EINTR) return std::strerror(errno);
  }
  return {};
}

std::string RawDataFile::write(std::int64_t offset, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  const auto a = static_cast<std::int64_t>(kDirectAlignment);
  // The aligned middle [begin, end) in file offsets; memory must be aligned with it.
  const std::int64_t begin = (offset + a - 1) / a * a;
  const std::int64_t end = (offset + static_cast<std::int64_t>(bytes)) / a * a;
  const unsigned char* middle = p + (begin - offset);
  const bool direct = direct_ >= 0 && end > begin &&
                      reinterpret_cast<std::uintptr_t>(middle) % kDirectAlignment == 0;
  int error = 0;
  if (!direct) {
    error = write_all(buffered_, offset, p, bytes);
  } else {
    error = write_all(buffered_, offset, p, static_cast<std::size_t>(begin - offset));
    if (error == 0) {
      error = write_all(direct_, begin, middle, static_cast<std::size_t>(end - begin));
      // A file system may accept O_DIRECT at open and refuse the transfer: write buffered.
      if (error == EINVAL)
        error = write_all(buffered_, begin, middle, static_cast<std::size_t>(end - begin));
      else if (error == 0)
        direct_bytes_ += end - begin;
    }
    if (error == 0)
      error = write_all(buffered_, end, p + (end - offset),
                        static_cast<std::size_t>(offset + static_cast<std::int64_t>(bytes) - end));
  }
  return error == 0 ? std::string() : std::string(std::strerror(error));
}

}  // namespace tessera::detail
