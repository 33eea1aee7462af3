// core_includes_capi_probe.cpp - compiled with a core target's include path by the test
// layering.core_cannot_see_capi, which passes only when this fails to find dpk/dpk.h: proof that
// the header targets keep the public C API out of the core's reach.
#include "dpk/dpk.h"
#include "runtime/Registry.h"
