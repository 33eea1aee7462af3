# check_core_includes.cmake - fails when a file under core/ includes a frontend header.
#
# The core sits below the frontends: it shares plain-C types with them through include/dpk/
# (dpk_types.h) and speaks the plugin ABI (dpk/plugin.h), but never includes the public C API
# (dpk/dpk.h) or anything under frontends/. The build already enforces this (core targets do not
# have frontends/c/include on their include path); this check also catches includes by relative
# path and headers that no target compiles.
#   cmake -DCORE_DIR=<repo>/core -P check_core_includes.cmake
if(NOT CORE_DIR)
  message(FATAL_ERROR "set CORE_DIR")
endif()
file(GLOB_RECURSE core_files "${CORE_DIR}/*.h" "${CORE_DIR}/*.hpp" "${CORE_DIR}/*.cpp"
     "${CORE_DIR}/*.inc" "${CORE_DIR}/*.def")
set(violations "")
foreach(path ${core_files})
  file(STRINGS "${path}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(line ${includes})
    if(line MATCHES "[<\"](dpk/dpk\\.h|[^>\"]*frontends/[^>\"]*)[>\"]")
      file(RELATIVE_PATH relative "${CORE_DIR}/.." "${path}")
      string(APPEND violations "\n  ${relative}: ${line}")
    endif()
  endforeach()
endforeach()
list(LENGTH core_files count)
if(violations)
  message(FATAL_ERROR "core files include frontend headers:${violations}")
endif()
message(STATUS "check_core_includes: ${count} core files, none includes a frontend header")
