"""Names of numba-dpex, numba-dppy, numba.cuda and dpctl that dpk does not provide, and what to use
instead. ``dpk.<name>`` for one of them (in Python or inside a kernel) raises ForeignNameError,
an AttributeError whose message names the dpk equivalent, so code ported by changing its
imports fails with a way forward rather than a bare AttributeError.

``dpk/__init__.py`` installs ``module_getattr`` as the package's ``__getattr__``; Python calls it
only for names the package does not define, so a name that dpk gains later (``jit`` when the jit
model lands) simply stops being foreign. docs/porting.md has the full tables.
"""

from __future__ import annotations

from .._errors import ForeignNameError

_CUDA_DIMS = "(.x, .y, .z are dimensions 0, 1, 2 of dpk's launch; see docs/porting.md)"

#: name -> (where it comes from, what to use in dpk)
FOREIGN_NAMES = {
    # numba-dpex / numba-dppy
    "dpjit": ("numba-dpex's @dpjit",
              "use @dpk.jit with dpk.prange loops (docs/jit.md)"),
    "autojit": ("numba-dppy's autojit", "use @dpk.kernel (it compiles per argument types)"),
    "offload_to_sycl_device": ("numba-dpex's offload_to_sycl_device",
                               "use `with dpk.device_context(device):`"),
    "usm_ndarray": ("dpctl.tensor.usm_ndarray", "dpk arrays are dpk.Array "
                    "(dpk.asarray(x, device=...), dpk.empty/zeros/ones)"),
    "USMNdArray": ("numba-dpex's USMNdArray type",
                   "dpk needs no array types: kernels specialize on the arguments; "
                   "for eager compilation use dpk.array_type(dtype, ndim)"),
    "DpnpNdArray": ("numba-dpex's DpnpNdArray type", "use dpk.array_type(dtype, ndim)"),
    "DEFAULT_LOCAL_RANGE": ("numba-dpex's DEFAULT_LOCAL_RANGE", "use dpk.DEFAULT_LOCAL_SIZE"),
    "sub_group": ("numba-dpex's sub_group", "sub-groups are not exposed; use work-group "
                  "operations (dpk.barrier, dpk.local.array)"),
    # numba.cuda
    "threadIdx": ("numba.cuda's threadIdx", f"use dpk.get_local_id(d) {_CUDA_DIMS}"),
    "blockIdx": ("numba.cuda's blockIdx", f"use dpk.get_group_id(d) {_CUDA_DIMS}"),
    "blockDim": ("numba.cuda's blockDim", f"use dpk.get_local_size(d) {_CUDA_DIMS}"),
    "gridDim": ("numba.cuda's gridDim", f"use dpk.get_num_groups(d) {_CUDA_DIMS}"),
    "grid": ("numba.cuda's grid(ndim)", "use dpk.get_global_id(d) for each dimension d"),
    "gridsize": ("numba.cuda's gridsize(ndim)", "use dpk.get_global_size(d)"),
    "syncthreads": ("numba.cuda's syncthreads", "use dpk.barrier(dpk.LOCAL_MEM_FENCE)"),
    "syncwarp": ("numba.cuda's syncwarp", "use dpk.sub_group_barrier() (a work-group barrier)"),
    "shared": ("numba.cuda's shared memory", "use dpk.local.array(shape, dtype) (numba.cuda's "
               "local.array is per-thread: dpk.private.array)"),
    "const": ("numba.cuda's constant memory", "pass the array as a kernel argument"),
    "jit": ("numba.cuda's @cuda.jit", "kernels are @dpk.kernel, device functions "
            "@dpk.device_func; launch kernel[blocks * threads, threads](args)"),
    "to_device": ("numba.cuda's to_device", "use dpk.asarray(x, device=...)"),
    "device_array": ("numba.cuda's device_array", "use dpk.empty(shape, dtype, device=...)"),
    "device_array_like": ("numba.cuda's device_array_like",
                          "use dpk.empty(a.shape, a.dtype, device=...)"),
    "pinned_array": ("numba.cuda's pinned_array", "use a NumPy array"),
    "synchronize": ("numba.cuda's synchronize", "launches are synchronous; for async launches "
                    "wait on the event of dpk.call_kernel_async, or Device.synchronize()"),
    "stream": ("numba.cuda's stream", "dpk has one queue per device; order async launches with "
               "dpk.call_kernel_async(kernel, range, [events], *args)"),
    "is_available": ("numba.cuda's is_available", "use dpk.has_device('cuda:gpu')"),
    "gpus": ("numba.cuda's gpus", "use dpk.get_devices()"),
    "laneid": ("numba.cuda's laneid", "sub-groups are not exposed in dpk"),
    "warpsize": ("numba.cuda's warpsize", "sub-groups are not exposed in dpk"),
    # dpctl
    "SyclDevice": ("dpctl.SyclDevice", "use dpk.select_device(filter) (a dpk.Device)"),
    "SyclQueue": ("dpctl.SyclQueue", "dpk has one in-order queue per device: "
                  "dpk.select_device(filter).queue; launches pick it from their arrays"),
    "get_current_queue": ("dpctl.get_current_queue", "use dpk.get_current_device()"),
    "select_default_device": ("dpctl.select_default_device", "use dpk.default_device()"),
    "select_gpu_device": ("dpctl.select_gpu_device", "use dpk.select_device('gpu')"),
    "select_cpu_device": ("dpctl.select_cpu_device", "use dpk.select_device('cpu')"),
    "select_accelerator_device": ("dpctl.select_accelerator_device",
                                  "use dpk.select_device('accelerator')"),
    "has_gpu_devices": ("dpctl.has_gpu_devices", "use dpk.has_device('gpu')"),
    "has_cpu_devices": ("dpctl.has_cpu_devices", "use dpk.has_device('cpu')"),
    "get_num_devices": ("dpctl.get_num_devices", "use len(dpk.get_devices(...))"),
    # dpctl.tensor (import dpctl.tensor as dpt -> import dpk as dpt)
    "from_numpy": ("dpctl.tensor.from_numpy", "use dpk.asarray(x, device=...)"),
    "asnumpy": ("dpctl.tensor.asnumpy", "use the array's .asnumpy() or numpy.asarray(a)"),
    "to_numpy": ("dpctl.tensor.to_numpy", "use the array's .asnumpy() or numpy.asarray(a)"),
    "empty_like": ("dpctl.tensor.empty_like", "use dpk.empty(a.shape, a.dtype, device=a.device)"),
    "zeros_like": ("dpctl.tensor.zeros_like", "use dpk.zeros(a.shape, a.dtype, device=a.device)"),
    "ones_like": ("dpctl.tensor.ones_like", "use dpk.ones(a.shape, a.dtype, device=a.device)"),
    "full": ("dpctl.tensor.full", "use dpk.asarray(numpy.full(...), device=...)"),
    "arange": ("dpctl.tensor.arange", "use dpk.asarray(numpy.arange(...), device=...)"),
}


def foreign_name_error(module_name, name):
    """The ForeignNameError for ``module.name``, or a plain AttributeError for unknown names."""
    entry = FOREIGN_NAMES.get(name)
    if entry is None:
        return AttributeError(f"module '{module_name}' has no attribute '{name}'")
    origin, instead = entry
    return ForeignNameError(f"module '{module_name}' has no attribute '{name}' ({origin})",
                            name=name, hint=instead)


def module_getattr(name):
    """``dpk.__getattr__``: raises ForeignNameError for a known foreign name."""
    raise foreign_name_error("dpk", name)
