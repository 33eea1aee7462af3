"""Scale-out: dpk with the engines people already run across processes and machines
(docs/scale-out.md).

  - ``select_device(filter, local_rank=None)`` and ``local_rank()``: one device per process of
    an MPI (or Slurm, Flux, ...) job, from the launcher's node-local rank (``ranks.py``).
  - ``dpk.scaleout.mpi``: dpk arrays of any device in mpi4py's buffer-based calls (direct where
    the MPI library can address their memory, staged through the host otherwise).
  - ``dpk.scaleout.dask_chunks``: dpk arrays as Dask array chunks (``register()``).

The MPI and Dask modules import mpi4py and Dask only when they are imported themselves, so
``import dpk`` never needs either.
"""

from .ranks import LOCAL_RANK_VARIABLES, local_rank, select_device

__all__ = ["LOCAL_RANK_VARIABLES", "local_rank", "select_device"]
