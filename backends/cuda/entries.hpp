// entries.hpp - declares the cuda plugin's entry points: one function per row of
// dpk/plugin_entries.def, defined in the file of the object it acts on.
#ifndef DPK_BACKENDS_CUDA_ENTRIES_HPP
#define DPK_BACKENDS_CUDA_ENTRIES_HPP

#include "dpk/plugin.h"

namespace dpk::cuda {
#include "PluginEntries.h"
} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_ENTRIES_HPP
