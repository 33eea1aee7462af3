// entries.hpp - declares the level_zero plugin's entry points: one function per row of
// dpk/plugin_entries.def, defined in the file of the object it acts on.
#ifndef DPK_BACKENDS_LEVEL_ZERO_ENTRIES_HPP
#define DPK_BACKENDS_LEVEL_ZERO_ENTRIES_HPP

#include "dpk/plugin.h"

namespace dpk::level_zero {
#include "PluginEntries.h"
} // namespace dpk::level_zero

#endif // DPK_BACKENDS_LEVEL_ZERO_ENTRIES_HPP
