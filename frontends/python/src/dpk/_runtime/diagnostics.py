"""Offload diagnostics from Python: receive the runtime's records as dicts.

The level (1 = where each kernel ran and every fallback, 2 = plugins, policy, compiles and cache
events, 3 = launches and copies, 4 = stage dumps) is set by the policy or the DPK_DIAGNOSTICS
environment variable before the runtime starts; this module listens, and lets Python code emit
records of its own through the same sink (``enabled``, ``emit``: the array layer's fusion groups
and implicit copies).
"""

from __future__ import annotations

import contextlib
import json
import threading

from .._core_loader import core

_lock = threading.Lock()
_listeners = []


def _dispatch(level, text):
    try:
        record = json.loads(text)
    except ValueError:
        record = {"text": text}
    record.setdefault("level", level)
    with _lock:
        listeners = list(_listeners)
    for fn in listeners:
        fn(record)


def add_listener(fn):
    """Calls ``fn(record: dict)`` for every diagnostics record from now on."""
    with _lock:
        first = not _listeners
        _listeners.append(fn)
    if first:
        core().set_diagnostics_callback(_dispatch)


def remove_listener(fn):
    with _lock:
        _listeners.remove(fn)
        last = not _listeners
    if last:
        core().set_diagnostics_callback(None)


@contextlib.contextmanager
def capture():
    """``with dpk.diagnostics.capture() as records:`` collects the records of the block."""
    records = []
    add_listener(records.append)
    try:
        yield records
    finally:
        remove_listener(records.append)


# ---- records from Python ---------------------------------------------------------------------

_enabled_levels = {}


def enabled(level) -> bool:
    """Whether the runtime produces records of `level` (fixed once the runtime has started, so
    the answer is cached)."""
    answer = _enabled_levels.get(level)
    if answer is None:
        answer = _enabled_levels[level] = bool(core().diagnostics_enabled(level))
    return answer


def emit(level, event, fields):
    """Emits one record through the runtime's sink (same format and listeners as its own)."""
    if enabled(level):
        core().emit_diagnostic(level, event, fields)
