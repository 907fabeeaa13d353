# tessera_hydro: the hydro kernels euler and radhydro share (docs/apps/radhydro.md, "Shared hydro kernels"). Not an
# app (no CMakeLists.txt, so the apps/* loop skips it): each app that needs it includes
# this file, and the first one defines the library.
include_guard(GLOBAL)
add_library(tessera_hydro STATIC ${CMAKE_CURRENT_LIST_DIR}/riemann_exact.cpp)
# Its headers are included as "hydro/<name>.hpp".
target_include_directories(tessera_hydro PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_compile_features(tessera_hydro PUBLIC cxx_std_20)
