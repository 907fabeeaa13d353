#pragma once
// A scratch directory every rank of MPI_COMM_WORLD shares, for the io tests: rank 0 makes it,
// every rank gets its name; remove_shared waits for every rank, then rank 0 deletes it.
#include <mpi.h>

#include <cstring>
#include <filesystem>
#include <string>

namespace tessera::io_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// A fresh directory named <temp>/<prefix>XXXXXX (empty string on every rank if rank 0
/// cannot make it). Collective.
inline std::string shared_temp_dir(const std::string& prefix) {
  char name[256] = {};
  if (world_rank() == 0) {
    const std::string templ =
        (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    std::strncpy(name, templ.c_str(), sizeof(name) - 1);
    if (mkdtemp(name) == nullptr) name[0] = '\0';
  }
  MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
  return name;
}

/// Collective: removes `dir` once every rank is done with it.
inline void remove_shared(const std::string& dir) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::filesystem::remove_all(dir);
}

}  // namespace tessera::io_test
