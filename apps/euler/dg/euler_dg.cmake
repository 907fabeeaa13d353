# The DG numerics of euler (this folder) added to a target: the euler app, the unit and MPI
# test binaries and bench_dg_kernels include this file and call euler_dg_sources(TARGET).
# The sources compile outside the unity batches (they would shift the test binaries' other
# batches) at -O3 in an optimized build (the test binaries' own code compiles at -O1).
# With libxsmm (Debian libxsmm-dev: static libxsmm.a and libxsmmnoblas.a) the small dense
# products run libxsmm's JIT kernels (dg/small_gemm.cpp); not in sanitizer builds (its JIT
# code and internal locks are not instrumented).
find_library(TESSERA_LIBXSMM NAMES xsmm)
find_library(TESSERA_LIBXSMM_NOBLAS NAMES xsmmnoblas)
set(EULER_DG_DIR ${CMAKE_CURRENT_LIST_DIR})

function(euler_dg_sources target)
  file(GLOB sources CONFIGURE_DEPENDS ${EULER_DG_DIR}/*.cpp)
  target_sources(${target} PRIVATE ${sources})
  set_source_files_properties(${sources} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON
    COMPILE_OPTIONS $<$<CONFIG:Release,RelWithDebInfo>:-O3>)
  if(TESSERA_LIBXSMM AND TESSERA_LIBXSMM_NOBLAS AND NOT TESSERA_SANITIZER)
    set_property(SOURCE ${EULER_DG_DIR}/small_gemm.cpp APPEND PROPERTY COMPILE_DEFINITIONS
      TESSERA_HAVE_LIBXSMM)
    target_link_libraries(${target} PRIVATE ${TESSERA_LIBXSMM} ${TESSERA_LIBXSMM_NOBLAS}
      Threads::Threads ${CMAKE_DL_LIBS})
  endif()
endfunction()
