"""benchmarks/foreign_launch_overhead.py never crashes because of an unusable library: each one
is measured in a child process, and a child that fails or crashes becomes a printed skip reason.
"""

import importlib.util
import os
import subprocess
import sys

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks",
                     "foreign_launch_overhead.py")


def _load():
    spec = importlib.util.spec_from_file_location("foreign_launch_overhead", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_crashing_child_becomes_a_skip_reason():
    bench = _load()
    crashed = subprocess.run([sys.executable, "-c", "import os, sys; "
                              "sys.stderr.write('numba exploded\\n'); os.abort()"],
                             capture_output=True, text=True)
    assert bench._skip_reason(crashed) == "crashed with signal 6 (numba exploded)"
    failed = subprocess.run([sys.executable, "-c", "raise SystemExit(3)"], capture_output=True,
                            text=True)
    assert bench._skip_reason(failed) == "exited with status 3 (no output)"


def test_an_unusable_library_is_reported_not_raised():
    bench = _load()
    us, reason = bench.measure("no-such-library", calls=1, rounds=1, timeout=120)
    assert us is None and reason.startswith("KeyError"), reason
    # numba-cuda under a NumPy without row_stack (as NumPy >= 2.5): whether numba-cuda is
    # missing here or fails on the missing function, the child reports a skip and exits cleanly.
    run = subprocess.run([sys.executable, "-c", (
        "import runpy, sys, numpy; numpy.__dict__.pop('row_stack', None)\n"
        "sys.argv = ['x', '--child', 'numba-cuda', '1', '1']\n"
        f"runpy.run_path({_PATH!r}, run_name='__main__')")],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert '"skip"' in run.stdout, run.stdout
