# Builds tessera for SimGrid's SMPI simulator (TESSERA_SMPI=ON; scripts/smpi-build).
#
# SMPI's compiler wrappers (smpicc/smpicxx) force-include smpi/smpi_helpers.h into every
# translation unit. That header defines function-like macros named exit, malloc, free,
# getopt, sleep, getpid, ..., which break standard and third-party C++ headers (CLI11's
# `std::exit`, allocator members named `free`). tessera calls none of the functions those
# macros redirect: its timing goes through MPI_Wtime, which SMPI answers in simulated time,
# and its ranks never sleep. So the real compiler builds everything, against SMPI's mpi.h
# and libsimgrid, without the helper header; the program is linked the way smpicxx links
# it (a shared object that smpirun's loader opens once per simulated rank).
#
# Defines the imported targets MPI::MPI_C and MPI::MPI_CXX that the rest of the build links
# as usual.

find_path(SMPI_INCLUDE_DIR smpi/mpi.h
  HINTS /usr/include
  DOC "directory holding SimGrid's smpi/mpi.h")
find_library(SIMGRID_LIBRARY simgrid DOC "SimGrid's library (SMPI's MPI implementation)")
find_program(SMPIRUN_EXECUTABLE smpirun DOC "SimGrid's launcher for SMPI programs")
if(NOT SMPI_INCLUDE_DIR OR NOT SIMGRID_LIBRARY OR NOT SMPIRUN_EXECUTABLE)
  message(FATAL_ERROR "TESSERA_SMPI needs SimGrid (Debian package libsimgrid-dev): "
    "smpi/mpi.h: ${SMPI_INCLUDE_DIR}, libsimgrid: ${SIMGRID_LIBRARY}, smpirun: ${SMPIRUN_EXECUTABLE}")
endif()

add_library(MPI::MPI_C INTERFACE IMPORTED)
# smpi/ first so that `#include <mpi.h>` finds SMPI's; its headers include <xbt/...> and
# <simgrid/...> from the parent directory.
set_target_properties(MPI::MPI_C PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${SMPI_INCLUDE_DIR}/smpi;${SMPI_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${SIMGRID_LIBRARY}"
  # TESSERA_SMPI: the code knows it runs simulated (messages always through MPI).
  INTERFACE_COMPILE_DEFINITIONS "TESSERA_SMPI=1")
# The library links MPI's CXX component target (a C++-only project's name for the C API).
add_library(MPI::MPI_CXX INTERFACE IMPORTED)
set_target_properties(MPI::MPI_CXX PROPERTIES INTERFACE_LINK_LIBRARIES MPI::MPI_C)
set(MPIEXEC_EXECUTABLE "${SMPIRUN_EXECUTABLE}")

# smpirun dlopens the program once per rank (a private copy of its globals each), so
# programs are position-independent shared objects: -fPIC (not the -fPIE that
# POSITION_INDEPENDENT_CODE gives executables) and -shared; -z defs keeps unresolved
# symbols a link error, as smpicxx does.
add_compile_options(-fPIC)
# Each copy must keep its own inline variables and the static locals of inline functions
# too: as STB_GNU_UNIQUE symbols (g++'s default) the dynamic linker would give every
# simulated rank the first copy's (one rank's deferred compute charges and clock stamps
# read by all).
add_compile_options(-fno-gnu-unique)
string(APPEND CMAKE_EXE_LINKER_FLAGS " -shared -Wl,-z,defs")
