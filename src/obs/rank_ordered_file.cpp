#include "obs/rank_ordered_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "obs/mpi_check.hpp"

namespace tessera::obs {

namespace {

/// Largest piece handed to one MPI-IO call (counts are ints).
constexpr std::size_t kMaxCallBytes = std::size_t{1} << 30;

std::string mpi_error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

/// Every rank learns whether any rank failed; those that did not get a generic reason.
void agree_or_throw(const std::string& error, const std::string& failed_elsewhere,
                    MPI_Comm comm) {
  int failed = error.empty() ? 0 : 1;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (failed) throw std::runtime_error(error.empty() ? failed_elsewhere : error);
}

/// Writes `text` at `offset`; returns an error text or "".
std::string write_at(MPI_File file, std::uint64_t offset, std::string_view text) {
  for (std::size_t done = 0; done < text.size(); done += kMaxCallBytes) {
    const int count = static_cast<int>(std::min(kMaxCallBytes, text.size() - done));
    const int rc = MPI_File_write_at(file, static_cast<MPI_Offset>(offset + done),
                                     text.data() + done, count, MPI_CHAR, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_error_text(rc);
  }
  return {};
}

}  // namespace

void write_rank_ordered_file(const std::string& path, std::string_view label,
                             std::string_view head, std::string_view piece, std::string_view tail,
                             MPI_Comm comm) {
  int rank = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  const auto failure = [&](const std::string& reason) {
    return fmt::format("{}: cannot write '{}': {}", label, path, reason);
  };
  const std::string failed_elsewhere = failure("failed on another rank");

  // Rank 0 creates the temporary file itself so that a bad path fails with the system's
  // reason, on every rank, before anything is written.
  std::string temporary = fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
  std::string error;
  if (rank == 0) {
    std::FILE* created = std::fopen(temporary.c_str(), "wb");
    if (!created || std::fclose(created) != 0) error = failure(std::strerror(errno));
  }
  agree_or_throw(error, failed_elsewhere, comm);
  int name_length = static_cast<int>(temporary.size());
  mpi_check(MPI_Bcast(&name_length, 1, MPI_INT, 0, comm), "MPI_Bcast");
  temporary.resize(static_cast<std::size_t>(name_length));
  mpi_check(MPI_Bcast(temporary.data(), name_length, MPI_CHAR, 0, comm), "MPI_Bcast");

  const std::uint64_t mine = piece.size() + (rank == 0 ? head.size() : 0);
  std::uint64_t offset = 0;
  std::uint64_t total = 0;
  mpi_check(MPI_Exscan(&mine, &offset, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan");
  if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  mpi_check(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");

  MPI_File file = MPI_FILE_NULL;
  const int open_rc = MPI_File_open(comm, temporary.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  if (open_rc != MPI_SUCCESS) error = failure(mpi_error_text(open_rc));
  if (open_rc == MPI_SUCCESS) {
    if (rank == 0) {
      error = write_at(file, 0, head);
      if (error.empty()) error = write_at(file, head.size(), piece);
      if (error.empty()) error = write_at(file, total, tail);
    } else {
      error = write_at(file, offset, piece);
    }
    if (!error.empty()) error = failure(error);
    const int close_rc = MPI_File_close(&file);
    if (close_rc != MPI_SUCCESS && error.empty()) error = failure(mpi_error_text(close_rc));
  }
  try {
    agree_or_throw(error, failed_elsewhere, comm);
    if (rank == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) {
      error = failure(std::strerror(errno));
    }
    agree_or_throw(error, failed_elsewhere, comm);
  } catch (...) {
    if (rank == 0) std::remove(temporary.c_str());
    throw;
  }
}

}  // namespace tessera::obs
