// common.hpp - the OpenCL headers as this plugin uses them and the one cl_int -> dpk_status_t
// mapping through which every vendor call's status goes.
#ifndef DPK_BACKENDS_OPENCL_COMMON_HPP
#define DPK_BACKENDS_OPENCL_COMMON_HPP

// OpenCL 3.0 headers; 1.2 entry points (clCreateCommandQueue) stay for pre-2.0 platforms.
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "PluginSupport.h"

#include <string>

namespace dpk::opencl {

using plugin::fail;

/// "CL_INVALID_VALUE" for -30; "CL_UNKNOWN_ERROR" for codes outside the table.
const char *clErrorName(cl_int status);

/// The dpk status a failed OpenCL call maps to (DPK_SUCCESS for CL_SUCCESS).
dpk_status_t mapClStatus(cl_int status);

/// DPK_SUCCESS for CL_SUCCESS; otherwise records "<call>: CL_NAME (-N)" (plus "\n<detail>" when
/// given) with the cl_int as native code and returns the mapped status. `call` may be the whole
/// call expression: only the text before its first '(' is used.
dpk_status_t checkCl(cl_int status, const char *call, const std::string &detail = {});

} // namespace dpk::opencl

/// Runs an OpenCL call and returns from the enclosing function if it failed, naming the call.
#define CL_RETURN_ON_FAILURE(call) DPK_RETURN_ON_FAILURE(::dpk::opencl::checkCl((call), #call))

#endif // DPK_BACKENDS_OPENCL_COMMON_HPP
