"""The array programming model: the Python Array API standard (2024.12) as the ``dpk``
namespace, with compute-follows-data and automatic fusion (docs/arrays.md).

One module per section of the standard, as array-api-strict is laid out: array_object.py
(the array object) with elementwise_ops.py (its operators and the elementwise operations'
checks), creation_functions.py, data_type_functions.py,
elementwise_functions.py (generated from elementwise_table.py, the one table of elementwise
functions), indexing_functions.py, linear_algebra_functions.py, manipulation_functions.py,
searching_functions.py, statistical_functions.py, utility_functions.py, info.py, constants.py
and dtypes.py. Below them the machinery every section uses: fusion.py (the expression graph and
its elementwise kernels), immediate.py (operations on small arrays run at once, in one
native call), reduction.py, scan.py, matmul.py (with blas.py, the vendor GEMM it
tries first), indexing.py, generated.py (building, caching and launching generated kernels) and
memory.py (device buffers and their pool). Kernels
are built through ``dpk._ir`` and launched on ``dpk._runtime``'s queues; this room sits below
``dpk.kernels``, whose launches take dpk arrays, and never imports it (tests/test_layering.py).
"""
