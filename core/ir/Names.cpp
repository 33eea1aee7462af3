// Names.cpp - which names IR text and the targets accept (see Names.h).
#include "ir/Names.h"

#include <iterator>
#include <unordered_set>

namespace dpk::ir {

bool isIrName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.';
    if (!word) return false;
  }
  return true;
}

bool isReservedWord(std::string_view name) {
  static const std::unordered_set<std::string_view> *words = [] {
    static const char *const list[] = {
        // C99
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
        "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
        "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
        "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex",
        "_Imaginary",
        // OpenCL C qualifiers and types
        "kernel", "global", "local", "constant", "private", "generic", "read_only",
        "write_only", "read_write", "uniform", "pipe", "bool", "true", "false", "half", "uchar",
        "ushort", "uint", "ulong", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "image1d_t",
        "image1d_array_t", "image1d_buffer_t", "image2d_t", "image2d_array_t", "image2d_depth_t",
        "image2d_array_depth_t", "image3d_t", "sampler_t", "event_t", "queue_t", "ndrange_t",
        "clk_event_t", "reserve_id_t", "cl_mem_fence_flags", "complex", "imaginary", "quad"};
    auto *set = new std::unordered_set<std::string_view>(std::begin(list), std::end(list));
    return set;
  }();
  if (words->count(name)) return true;
  // Vector types: char2 .. double16.
  static const char *const scalars[] = {"char", "uchar", "short", "ushort", "int", "uint",
                                        "long", "ulong", "float", "double", "half", "bool"};
  for (std::string_view scalar : scalars) {
    if (name.substr(0, scalar.size()) != scalar) continue;
    std::string_view width = name.substr(scalar.size());
    if (width == "2" || width == "3" || width == "4" || width == "8" || width == "16") return true;
  }
  return false;
}

std::string kernelNameProblem(std::string_view name) {
  std::string quoted = "kernel name '" + std::string(name) + "'";
  bool identifier = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name)
    identifier &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_';
  if (!identifier)
    return quoted + " is not a C identifier (letters, digits and '_', not starting with a "
                    "digit), which every target needs to name the kernel's entry point";
  if (name.substr(0, 2) == "__")
    return quoted + " starts with '__', which C and OpenCL C reserve";
  if (isReservedWord(name))
    return quoted + " is reserved in C or OpenCL C (a keyword or built-in type name)";
  return "";
}

} // namespace dpk::ir
