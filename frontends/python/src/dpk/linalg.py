"""``dpk.linalg``: the Python Array API standard's linear algebra extension (2024.12).

The public name of dpk.extensions.linalg, where the code lives (docs/arrays.md lists what each
function runs as).
"""

from .extensions.linalg import (cholesky, cross, det, diagonal, eigh, eigvalsh, inv, matmul,
                                matrix_norm, matrix_power, matrix_rank, matrix_transpose,
                                outer, pinv, qr, slogdet, solve, svd, svdvals, tensordot, trace,
                                vecdot, vector_norm)

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
           "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm"]
