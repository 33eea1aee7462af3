"""Array-namespace extensions written on top of the kernel model: the standard's linalg
extension (linalg.py), whose factorizations are dpk kernels (linalg_kernels.py).

Above ``dpk.kernels`` (its kernels are ``@dpk.kernel`` functions) and ``dpk.arrays``, below
the public modules (``dpk.linalg`` re-exports linalg.py); see tests/test_layering.py.
"""
