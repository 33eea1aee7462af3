// Parser.h - reads dpk IR text (as written by Printer.h, grammar in docs/ir.md).
//
// Functions may call functions defined later in the file. The parser checks syntax, names and
// the types it needs to build ops; semantic checks are left to verifyModule().
#ifndef DPK_CORE_IR_PARSER_H
#define DPK_CORE_IR_PARSER_H

#include "ir/IR.h"
#include "support/Error.h"

#include <memory>
#include <string_view>

namespace dpk::ir {

/// Parses a module. Errors are DPK_ERROR_PARSE with "file:line:col: error: <what>".
Expected<std::unique_ptr<Module>> parseModule(std::string_view text,
                                              std::string_view fileName = "<input>");

} // namespace dpk::ir

#endif // DPK_CORE_IR_PARSER_H
