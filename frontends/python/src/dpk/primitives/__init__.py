"""The parallel primitives (docs/primitives.md), written as dpk kernels and array code so they
run on every device:
  - philox.py: the Philox-4x32-10 counter-based generator as a device function, and the kernels
    that turn its words into uniform, normal and integer numbers;
  - random.py: ``Generator`` and the ``dpk.random`` functions over them;
  - vectorize.py: ``@dpk.vectorize``, a scalar function as a ufunc that joins fusion;
  - algorithms.py: reduce, scan, sort/argsort, topk, unique, bincount, scatter_add, compact.
Each module imports only the ones before it, plus the layers below (tests/test_layering.py).
"""
