// Printer.h - the deterministic text form of dpk IR (grammar in docs/ir.md).
//
// printModule(parseModule(printModule(m))) == printModule(m): floats print as exact hexfloats;
// a named value prints as %name, where of values sharing a name the first in definition order
// keeps it and the others get %name.1, %name.2, ...; unnamed values print as %N, numbered in
// definition order. Printed names are unique in a function and independent of Value::id, so the
// text is stable across a round trip.
#ifndef DPK_CORE_IR_PRINTER_H
#define DPK_CORE_IR_PRINTER_H

#include "ir/IR.h"

#include <string>

namespace dpk::ir {

struct PrintOptions {
  /// Append ` loc("file":line:col)` to ops (and functions) that carry a source location.
  bool locations = false;
};

/// The whole module: its functions in order.
std::string printModule(const Module &module, const PrintOptions &options = {});
/// One function with its body.
std::string printFunction(const Function &function, const PrintOptions &options = {});
/// One op (with nested regions) of `function`, for diagnostics; no trailing newline.
std::string printOp(const Function &function, const Op &op, const PrintOptions &options = {});
/// How `value` is spelled in `function` ("%x" or "%12").
std::string valueName(const Function &function, const Value &value);

} // namespace dpk::ir

#endif // DPK_CORE_IR_PRINTER_H
