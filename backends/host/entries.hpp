// entries.hpp - declares the host plugin's entry points: one function per row of
// dpk/plugin_entries.def, defined in the file of the object it acts on.
#ifndef DPK_BACKENDS_HOST_ENTRIES_HPP
#define DPK_BACKENDS_HOST_ENTRIES_HPP

#include "dpk/plugin.h"

namespace dpk::host {
#include "PluginEntries.h"
} // namespace dpk::host

#endif // DPK_BACKENDS_HOST_ENTRIES_HPP
