#pragma once
// Every MPI return code is checked: a failure becomes an exception naming the call.

#include <fmt/format.h>
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace tessera::detail {

/// Throws std::runtime_error "<call> failed: <MPI's error text>" unless `code` is MPI_SUCCESS.
inline void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::string(text, len)));
}

}  // namespace tessera::detail
