# dpkConfig.cmake of the Python package - find_package(dpk CONFIG) for native extensions:
#
#   execute_process(COMMAND ${Python_EXECUTABLE} -c "import dpk; print(dpk.get_cmake_dir())"
#                   OUTPUT_VARIABLE dpk_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
#   find_package(dpk CONFIG REQUIRED)
#   target_link_libraries(my_ext PRIVATE dpk::extension)
#
# dpk::extension is header-only (dpk/extension.hpp over the C ABI of dpk/extension.h): it adds
# include folders and links nothing; the functions come from dpk._core when the extension
# runs. The same file serves the installed package (dpk/cmake next to dpk/include) and a source
# checkout (frontends/python/cmake; the headers are then in three folders of the tree).
# (The C package's own dpkConfig.cmake, from `cmake --install`, defines dpk::extension too.)
get_filename_component(_dpk_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(EXISTS "${_dpk_root}/include/dpk/dpk.h")
  set(dpk_INCLUDE_DIRS "${_dpk_root}/include")
else()
  get_filename_component(_dpk_tree "${_dpk_root}/../.." ABSOLUTE)
  set(dpk_INCLUDE_DIRS "${_dpk_root}/include" "${_dpk_tree}/frontends/c/include"
                       "${_dpk_tree}/include")
  unset(_dpk_tree)
endif()
unset(_dpk_root)
foreach(_dpk_dir ${dpk_INCLUDE_DIRS})
  if(NOT EXISTS "${_dpk_dir}")
    set(dpk_FOUND FALSE)
    set(dpk_NOT_FOUND_MESSAGE "dpk's extension headers are not in ${_dpk_dir}")
    return()
  endif()
endforeach()
unset(_dpk_dir)

if(NOT TARGET dpk::extension)
  add_library(dpk::extension INTERFACE IMPORTED)
  set_target_properties(dpk::extension PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                  "${dpk_INCLUDE_DIRS}")
endif()
set(dpk_VERSION 0.1.0)
set(dpk_FOUND TRUE)
