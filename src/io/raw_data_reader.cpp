#include "io/raw_data_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace tessera::detail {

RawDataReader::RawDataReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = static_cast<std::int64_t>(st.st_size);
}

RawDataReader::~RawDataReader() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
  if (fd_ >= 0) ::close(fd_);
}

double RawDataReader::resident_fraction(std::int64_t offset, std::int64_t bytes) const {
  const long page = ::sysconf(_SC_PAGESIZE);
  if (fd_ < 0 || bytes <= 0 || page <= 0) return 0;
  const std::int64_t begin = offset / page * page;
  const auto length = static_cast<std::size_t>(offset + bytes - begin);
  // Mapping the range faults nothing in; mincore only reports which pages are cached.
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(begin));
  if (map == MAP_FAILED) return 0;
  std::vector<unsigned char> cached((length + static_cast<std::size_t>(page) - 1) /
                                    static_cast<std::size_t>(page));
  double fraction = 0;
  if (::mincore(map, length, cached.data()) == 0) {
    std::size_t n = 0;
    for (unsigned char c : cached) n += c & 1U;
    fraction = static_cast<double>(n) / static_cast<double>(cached.size());
  }
  ::munmap(map, length);
  return fraction;
}

bool RawDataReader::open_direct() {
#ifdef O_DIRECT
  if (direct_fd_ < 0 && !path_.empty())
    direct_fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
#endif
  return direct_fd_ >= 0;
}

std::string RawDataReader::read_direct(std::int64_t offset, void* data, std::size_t bytes,
                                       std::size_t at_least) const {
  auto* p = static_cast<unsigned char*>(data);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(direct_fd_, p + done, bytes - done, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::strerror(errno);
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
    offset += n;
    // A short transfer in the middle of the file would leave the next one unaligned.
    if (done < bytes && static_cast<std::size_t>(n) % 4096 != 0) break;
  }
  return done >= at_least ? std::string() : std::string("end of file");
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
