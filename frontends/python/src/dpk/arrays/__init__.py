"""dpk arrays: the array object (memory on one dpk device, DLPack and
``__cuda_array_interface__`` interchange) and its creation functions (array_object.py).

The room of the array programming model: the Array API namespace will grow here, one module per
section of the standard, building its kernels through ``dpk._ir`` and launching them on
``dpk._runtime``'s queues. It sits below ``dpk.kernels``, whose launches take dpk arrays, and
never imports it (see tests/test_layering.py).
"""
