# EmbedFile.cmake - writes a C++ header holding a text file as a raw string literal.
# Run as: cmake -DINPUT=<file> -DOUTPUT=<header> -DSYMBOL=<name> -P EmbedFile.cmake
# Used so the default policy file and the built-in default can never drift apart.
file(READ "${INPUT}" content)
string(FIND "${content}" ")dpkembed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )dpkembed\"")
endif()
set(text "// Generated from ${INPUT} by EmbedFile.cmake: do not edit.\n#pragma once\nstatic const char ${SYMBOL}[] = R\"dpkembed(${content})dpkembed\";\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${text}")
