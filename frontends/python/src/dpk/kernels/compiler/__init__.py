"""The kernel compiler: a Python function plus argument types -> dpk IR text.

driver.py holds the entry point, ``compile_kernel``; source.py reads and parses a function's
source; codegen.py is the visitor core (one FunctionGen per function specialization) with one
mixin per topic: statements.py, expressions.py, operators.py, calls.py and kernel_api_calls.py.
Typing, values and math functions come from the shared layer ``dpk._ir``. docs/python.md lists
what Python is supported.
"""
