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

# The adaptive layers (src/amr, src/driver) need p4est and libsc. Debian's are built against
# OpenMPI, so an SMPI build uses static ones compiled with SMPI's wrappers from Debian's
# source package (scripts/smpi-build puts them in <build>/deps): static, so that they are
# part of each program and smpirun's loader gives every simulated rank its own copy of
# their globals (libsc's package registry, log handlers, p4est's package id). Without
# TESSERA_SMPI_P4EST the adaptive layers and apps are left out.
set(TESSERA_SMPI_P4EST "" CACHE PATH
  "Prefix of p4est and libsc built for SMPI (scripts/smpi-build); empty: no adaptive apps")
set(TESSERA_SMPI_AMR OFF)
if(TESSERA_SMPI_P4EST)
  # Plain paths, not cached find results: a new prefix takes effect at once.
  set(SMPI_P4EST_INCLUDE_DIR ${TESSERA_SMPI_P4EST}/include)
  set(SMPI_P4EST_LIBRARY ${TESSERA_SMPI_P4EST}/lib/libp4est.a)
  set(SMPI_SC_LIBRARY ${TESSERA_SMPI_P4EST}/lib/libsc.a)
  find_package(ZLIB REQUIRED)  # libsc's compressed I/O
  if(NOT EXISTS ${SMPI_P4EST_INCLUDE_DIR}/p8est.h OR NOT EXISTS ${SMPI_P4EST_LIBRARY}
     OR NOT EXISTS ${SMPI_SC_LIBRARY})
    message(FATAL_ERROR "TESSERA_SMPI_P4EST=${TESSERA_SMPI_P4EST} holds no SMPI build of "
      "p4est and libsc (include/p8est.h, lib/libp4est.a, lib/libsc.a); scripts/smpi-build makes one")
  endif()
  add_library(P4est::SC STATIC IMPORTED)
  set_target_properties(P4est::SC PROPERTIES
    IMPORTED_LOCATION "${SMPI_SC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SMPI_P4EST_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "MPI::MPI_C;ZLIB::ZLIB;m")
  add_library(P4est::P4est STATIC IMPORTED)
  set_target_properties(P4est::P4est PROPERTIES
    IMPORTED_LOCATION "${SMPI_P4EST_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SMPI_P4EST_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES P4est::SC)
  set(TESSERA_SMPI_AMR ON)
endif()
