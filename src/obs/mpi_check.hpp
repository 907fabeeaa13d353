#pragma once
// MPI return-code check for the obs layer's own MPI calls (clock sync, gathers).

#include <fmt/format.h>
#include <mpi.h>

#include <stdexcept>

namespace tessera::obs {

/// Throws std::runtime_error naming `call` and MPI's error string unless rc is MPI_SUCCESS.
inline void mpi_check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(fmt::format("obs: {} failed: {}", call, std::string_view(text, length)));
}

}  // namespace tessera::obs
