"""The kernel programming model (``@dpk.kernel`` and ``call_kernel``, numba-dpex's kapi):
  - kapi/: the names kernels use and their pure-Python execution (public as ``dpk.kernel_api``);
  - functions.py: DeviceFunction and the base of kernels, which the compiler recognises;
  - opencl_api.py: numba-dppy's OpenCL-style names (``get_global_id``, ``barrier``, ...);
  - foreign_names.py: names of numba.cuda, dpctl, ... and what to use instead;
  - compiler/: the AST compiler (a Python function + argument types -> dpk IR);
  - placement.py: launches whose arrays are on other devices, or are foreign arrays;
  - subscript_launch.py: ``kernel[global_size, local_size](args)``;
  - dispatcher.py: ``kernel``, ``device_func``, ``call_kernel[_async]`` and the launch misses.
In that order each module imports only the ones before it, plus the layers below the room
(``dpk.arrays``, ``dpk._runtime``, ``dpk._ir``; see tests/test_layering.py).
"""
