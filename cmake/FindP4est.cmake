# FindP4est: locate p4est (with its companion libsc) as packaged by Debian.
# p4est ships no CMake config, so this module defines the imported target
# P4est::P4est (headers p8est*.h, libraries p4est and sc).
find_path(P4EST_INCLUDE_DIR NAMES p8est.h)
find_path(SC_INCLUDE_DIR NAMES sc.h)
find_library(P4EST_LIBRARY NAMES p4est)
find_library(SC_LIBRARY NAMES sc)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(P4est
  REQUIRED_VARS P4EST_LIBRARY SC_LIBRARY P4EST_INCLUDE_DIR SC_INCLUDE_DIR)

if(P4est_FOUND AND NOT TARGET P4est::P4est)
  # libsc calls MPI; its link goes through MPI's CXX component, which needs no C compiler,
  # so C++-only projects that link the static libtessera find p4est too.
  find_package(MPI REQUIRED COMPONENTS CXX)
  add_library(P4est::SC UNKNOWN IMPORTED)
  set_target_properties(P4est::SC PROPERTIES
    IMPORTED_LOCATION "${SC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SC_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES MPI::MPI_CXX)
  add_library(P4est::P4est UNKNOWN IMPORTED)
  set_target_properties(P4est::P4est PROPERTIES
    IMPORTED_LOCATION "${P4EST_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${P4EST_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES P4est::SC)
endif()
mark_as_advanced(P4EST_INCLUDE_DIR SC_INCLUDE_DIR P4EST_LIBRARY SC_LIBRARY)
