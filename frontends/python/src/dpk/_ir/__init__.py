"""The IR-building layer every programming model shares (kernels now; arrays, jit and primitives
to come): how NumPy dtypes map onto IR scalar types and promote (types.py), the compile-time
values an expression evaluates to (values.py), the math functions and their IR ops
(mathfns.py), and builder helpers that emit constants, conversions, Python's floor division
and modulo, integer powers and linear work-item ids (builder.py).

Above the extension and the error classes, below everything else: it imports only
``dpk._errors``, ``dpk._core_loader`` and NumPy, never a programming model (see
tests/test_layering.py).
"""
