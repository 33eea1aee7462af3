// entries.hpp - declares the opencl plugin's entry points: one function per row of
// dpk/plugin_entries.def, defined in the file of the object it acts on.
#ifndef DPK_BACKENDS_OPENCL_ENTRIES_HPP
#define DPK_BACKENDS_OPENCL_ENTRIES_HPP

#include "dpk/plugin.h"

namespace dpk::opencl {
#include "PluginEntries.h"
} // namespace dpk::opencl

#endif // DPK_BACKENDS_OPENCL_ENTRIES_HPP
