#pragma once
// Checks the return code of an MPI call made by the amr layer.

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace tessera::amr_detail {

/// Throws std::runtime_error naming the call and MPI's error text when `code` is not
/// MPI_SUCCESS.
inline void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, length));
}

}  // namespace tessera::amr_detail

#define TESSERA_AMR_MPI_CHECK(call) ::tessera::amr_detail::check_mpi((call), #call)
