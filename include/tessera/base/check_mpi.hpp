#pragma once
// The one MPI return-code check of every layer: a failed call becomes an exception that
// names the call and carries MPI's own error text, so no error code is silently dropped.

#include <fmt/format.h>
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace tessera::detail {

/// MPI's text for an error code (MPI_Error_string).
inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

/// Throws std::runtime_error "<call> failed: <MPI's error text>" unless `code` is MPI_SUCCESS.
inline void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  throw std::runtime_error(fmt::format("{} failed: {}", call, mpi_error_text(code)));
}

}  // namespace tessera::detail

/// Checks one MPI call, naming it by its source text in the error.
#define TESSERA_MPI_CHECK(call) ::tessera::detail::check_mpi((call), #call)
