# tessera_layer(NAME [LOWER_LAYER ...] [EXCLUDE REGEX])
#
# Makes the library of one layer, tessera_NAME (exported and aliased as tessera::NAME), from
# src/NAME/*.cpp (less the files matching REGEX), linking the LOWER_LAYERs it may use (list
# them all, not only the next one down). Its compiler sees:
#   - the public headers of NAME and of its LOWER_LAYERs: each layer's include/tessera/NAME
#     is reached through its own folder of the build tree (layers/public/NAME/tessera/NAME,
#     a symbolic link), so "tessera/<upper layer>/x.hpp" is not found;
#   - its own private headers only (layers/private/NAME/NAME -> src/NAME), as "NAME/x.hpp".
# The top-level public headers (tessera/session.hpp, memory_check.hpp, restart.hpp,
# balance_options.hpp,
# option_registry.hpp) belong to the session layer; tessera/tessera.hpp to the umbrella
# target tessera::tessera.
# A layer without sources is an interface library, so new layers can start empty.
# Appends the target to TESSERA_LAYER_LIBRARIES in the caller's scope.
function(tessera_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXCLUDE" "")
  set(lower ${arg_UNPARSED_ARGUMENTS})
  set(target tessera_${name})
  set(public_root ${CMAKE_BINARY_DIR}/layers/public/${name})
  set(private_root ${CMAKE_BINARY_DIR}/layers/private/${name})
  file(MAKE_DIRECTORY ${public_root}/tessera ${private_root})
  if(EXISTS ${PROJECT_SOURCE_DIR}/include/tessera/${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/tessera/${name} ${public_root}/tessera/${name}
         SYMBOLIC)
  endif()
  if(name STREQUAL "session")
    foreach(header session.hpp memory_check.hpp restart.hpp option_registry.hpp
                   balance_options.hpp)
      if(EXISTS ${PROJECT_SOURCE_DIR}/include/tessera/${header})
        file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/tessera/${header}
             ${public_root}/tessera/${header} SYMBOLIC)
      endif()
    endforeach()
  endif()
  if(EXISTS ${PROJECT_SOURCE_DIR}/src/${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${name} ${private_root}/${name} SYMBOLIC)
  endif()

  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  if(arg_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "${arg_EXCLUDE}")
  endif()
  list(TRANSFORM lower PREPEND tessera_ OUTPUT_VARIABLE lower_targets)
  if(sources)
    add_library(${target} STATIC ${sources})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_include_directories(${target} PRIVATE ${private_root})
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${public_root}>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(${target} PUBLIC ${lower_targets})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${public_root}>
                                                   $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(${target} INTERFACE ${lower_targets})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(tessera::${name} ALIAS ${target})
  set(TESSERA_LAYER_LIBRARIES ${TESSERA_LAYER_LIBRARIES} ${target} PARENT_SCOPE)
endfunction()
