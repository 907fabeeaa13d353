#pragma once
// The amr layer's MPI calls are checked as comm's are (comm/check_mpi.hpp): a failure
// throws std::runtime_error naming the call and MPI's error text.

#include "comm/check_mpi.hpp"

#define TESSERA_AMR_MPI_CHECK(call) ::tessera::detail::check_mpi((call), #call)
