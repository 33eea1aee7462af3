"""The parallel primitives (docs/primitives.md), written as dpk kernels and array code so they
run on every device:
  - philox.py: the Philox-4x32-10 counter-based generator as a device function, and the kernels
    that turn its words into uniform, normal and integer numbers;
  - random.py: ``Generator`` and the ``dpk.random`` functions over them;
  - vectorize.py: ``@dpk.vectorize``, a scalar function as a ufunc that joins fusion;
  - common.py: which shape of kernel a device gets (kernel_shape), taking inputs, giving results;
  - reductions.py: reduce, scan/accumulate with built-in or device_func operators;
  - sorting.py: radix sort/argsort, topk, the unique_* set functions;
  - counting.py: bincount, histogram, scatter_add, compact, argwhere, searchsorted.
Each module imports only the ones before it, plus the layers below (tests/test_layering.py).
"""
