"""The console scripts a pip install puts on PATH: ``dpk-ls`` and ``dpkc``.

Both are the C++ tools themselves, installed in the package's ``bin/`` folder next to the
extension (``dpk/bin``, whose RPATH finds ``dpk/lib``); the entry points only replace the Python
process with them, so their output, options and exit status are exactly the tools'. A build
without them (a CMake build imported through PYTHONPATH) says where to find them instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import _core_loader


def tool_path(name: str) -> Path:
    """Where the installed package keeps the tool `name`."""
    return Path(_core_loader.core().__file__).resolve().parent / "bin" / name


def _run(name: str) -> None:
    path = tool_path(name)
    if not os.access(path, os.X_OK):
        sys.stderr.write(f"{name}: not installed with this dpk package (looked for {path}); "
                         f"a CMake build has it in <build>/bin\n")
        raise SystemExit(127)
    os.execv(path, [name, *sys.argv[1:]])


def dpk_ls() -> None:
    _run("dpk-ls")


def dpkc() -> None:
    _run("dpkc")
