#include "io/raw_data_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tessera::detail {

RawDataReader::RawDataReader(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = static_cast<std::int64_t>(st.st_size);
}

RawDataReader::~RawDataReader() {
  if (fd_ >= 0) ::close(fd_);
}

void RawDataReader::expect_sequential(std::int64_t offset, std::int64_t bytes) const {
  if (fd_ >= 0 && bytes > 0)
    (void)::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(bytes),
                          POSIX_FADV_SEQUENTIAL);
}

std::string RawDataReader::read(std::int64_t offset, void* data, std::size_t bytes) const {
  auto* p = static_cast<unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::strerror(errno);
    if (n == 0) return "end of file";
    p += n;
    offset += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace tessera::detail
