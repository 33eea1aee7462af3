// Names.h - which names IR text and the targets accept: IR names, kernel names, and the words
// C and OpenCL C reserve.
#ifndef DPK_CORE_IR_NAMES_H
#define DPK_CORE_IR_NAMES_H

#include <string>
#include <string_view>

namespace dpk::ir {

/// Whether `name` can name a function in IR text: letters, digits, '_' and '.', not empty.
bool isIrName(std::string_view name);

/// Why `name` cannot name a kernel, or "" when it can. A kernel keeps its name on every target
/// (it is the entry point the runtime looks up; only device functions are renamed where a
/// target needs it), so it must be a C identifier ([A-Za-z_][A-Za-z0-9_]*) that C and OpenCL C
/// do not reserve: no keyword or built-in type name (`kernel`, `float4`), nothing starting with
/// "__". Frontends that derive kernel names from user code can test a name with this.
std::string kernelNameProblem(std::string_view name);

/// C99 and OpenCL C keywords and built-in type names (vector types included): none can name a
/// function that a target emits.
bool isReservedWord(std::string_view name);

} // namespace dpk::ir

#endif // DPK_CORE_IR_NAMES_H
