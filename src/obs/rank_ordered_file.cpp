#include "obs/rank_ordered_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "tessera/base/check_mpi.hpp"

namespace tessera::obs {

namespace {

/// What each rank reports in a round.
struct RoundEntry {
  std::uint64_t bytes;
  std::uint64_t more;
  std::uint64_t failed;
};

}  // namespace

RankOrderedFile::RankOrderedFile(std::string path, std::string label, MPI_Comm comm)
    : path_(std::move(path)), label_(std::move(label)), comm_(comm) {
  ::tessera::detail::check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  ::tessera::detail::check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  temporary_ = fmt::format("{}.tmp.{}", path_, static_cast<long>(::getpid()));
  if (rank_ == 0) {
    std::FILE* created = std::fopen(temporary_.c_str(), "wb");
    if (!created || std::fclose(created) != 0) error_ = std::strerror(errno);
  }
  agree_or_throw();
  int name_length = static_cast<int>(temporary_.size());
  ::tessera::detail::check_mpi(MPI_Bcast(&name_length, 1, MPI_INT, 0, comm_), "MPI_Bcast");
  temporary_.resize(static_cast<std::size_t>(name_length));
  ::tessera::detail::check_mpi(MPI_Bcast(temporary_.data(), name_length, MPI_CHAR, 0, comm_),
                               "MPI_Bcast");
  open_shared();
  try {
    agree_or_throw();
  } catch (...) {
    close_shared();
    if (rank_ == 0) std::remove(temporary_.c_str());
    throw;
  }
}

RankOrderedFile::~RankOrderedFile() {
  if (committed_) return;
  close_shared();
  if (rank_ == 0) std::remove(temporary_.c_str());
}

#ifdef TESSERA_SMPI
void RankOrderedFile::open_shared() {
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) error_ = std::strerror(errno);
}

void RankOrderedFile::write_at(std::uint64_t offset, const char* data, std::size_t bytes) {
  for (std::size_t done = 0; done < bytes && error_.empty();) {
    const ssize_t n = ::pwrite(fd_, data + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno != EINTR) error_ = std::strerror(errno);
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

void RankOrderedFile::close_shared() {
  if (fd_ >= 0 && ::close(fd_) != 0 && error_.empty()) error_ = std::strerror(errno);
  fd_ = -1;
}
#else
void RankOrderedFile::open_shared() {
  const int rc = MPI_File_open(comm_, temporary_.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file_);
  if (rc != MPI_SUCCESS) {
    error_ = ::tessera::detail::mpi_error_text(rc);
    file_ = MPI_FILE_NULL;
  }
}

void RankOrderedFile::write_at(std::uint64_t offset, const char* data, std::size_t bytes) {
  // Largest piece handed to one MPI-IO call (counts are ints).
  constexpr std::size_t kMaxCallBytes = std::size_t{1} << 30;
  for (std::size_t done = 0; done < bytes && error_.empty(); done += kMaxCallBytes) {
    const int count = static_cast<int>(std::min(kMaxCallBytes, bytes - done));
    const int rc = MPI_File_write_at(file_, static_cast<MPI_Offset>(offset + done), data + done,
                                     count, MPI_CHAR, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) error_ = ::tessera::detail::mpi_error_text(rc);
  }
}

void RankOrderedFile::close_shared() {
  if (file_ == MPI_FILE_NULL) return;
  const int rc = MPI_File_close(&file_);
  file_ = MPI_FILE_NULL;
  if (rc != MPI_SUCCESS && error_.empty()) error_ = ::tessera::detail::mpi_error_text(rc);
}
#endif

void RankOrderedFile::agree_or_throw() {
  int failed = error_.empty() ? 0 : 1;
  ::tessera::detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm_),
                               "MPI_Allreduce");
  if (!failed) return;
  throw std::runtime_error(fmt::format("{}: cannot write '{}': {}", label_, path_,
                                       error_.empty() ? "failed on another rank" : error_));
}

bool RankOrderedFile::append_round(std::span<const std::string_view> pieces, bool more) {
  std::uint64_t bytes = 0;
  for (const std::string_view piece : pieces) bytes += piece.size();
  const RoundEntry mine{bytes, more ? 1u : 0u, error_.empty() ? 0u : 1u};
  std::vector<RoundEntry> all(static_cast<std::size_t>(size_));
  ::tessera::detail::check_mpi(
      MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm_),
      "MPI_Allgather");
  // Everyone sees the same entries, so everyone stops at the same round.
  if (std::any_of(all.begin(), all.end(), [](const RoundEntry& e) { return e.failed != 0; })) {
    agree_or_throw();
  }
  std::uint64_t offset = written_;
  for (int r = 0; r < rank_; ++r) offset += all[r].bytes;
  for (const RoundEntry& e : all) written_ += e.bytes;
  for (const std::string_view piece : pieces) {
    write_at(offset, piece.data(), piece.size());
    offset += piece.size();
  }
  return std::any_of(all.begin(), all.end(), [](const RoundEntry& e) { return e.more != 0; });
}

void RankOrderedFile::commit() {
  agree_or_throw();
  close_shared();
  agree_or_throw();
  if (rank_ == 0 && std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    error_ = std::strerror(errno);
  }
  agree_or_throw();
  committed_ = true;
}

}  // namespace tessera::obs
