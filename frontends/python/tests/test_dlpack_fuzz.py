"""A short, deterministic run of the DLPack importer's fuzzer (tests/fuzz/DlpackFuzzer.py):
hostile DLPack 1.0 and legacy capsules built with ctypes (mutated version, flags, device, ndim,
shape, strides, dtype, byte_offset, data pointer, capsule names) against ``dpk.from_dlpack``,
in a worker process so that a crash fails the test instead of killing pytest. The committed
reproducers (tests/fuzz/corpus/dlpack/) run first. ``scripts/fuzz.sh SECONDS dlpack`` fuzzes
for longer."""

import os
import subprocess
import sys

import pytest

FUZZER = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "fuzz",
                      "DlpackFuzzer.py")


@pytest.fixture
def fuzzer(core):
    assert os.path.exists(FUZZER), FUZZER
    return os.path.abspath(FUZZER)


def test_fuzzed_capsules_give_typed_errors_or_correct_arrays(fuzzer, tmp_path):
    # 3000 cases from a fixed seed: a few seconds; the worker inherits this process's dpk.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run(
        [sys.executable, fuzzer, "run", "--seconds", "120", "--max-cases", "3000",
         "--batch", "1500", "--seed", "15", "--artifacts", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "0 findings, 0 crashes" in result.stdout, result.stdout[-4000:]


def test_the_fuzzer_sees_what_it_must(fuzzer):
    # The harness's oracle itself: a valid tensor is read back exactly, a tensor beyond the
    # address space is refused with a dpk error, and deleters run once.
    sys.path.insert(0, os.path.dirname(fuzzer))
    try:
        import DlpackFuzzer as F
    finally:
        sys.path.pop(0)
    import dpk
    arena, deleters = F.Arena(), F.Deleters()
    outcomes = set()
    for index in range(400):
        outcomes.add(F.run_case(F.case_bytes(3, index), arena, deleters, dpk))
    assert outcomes == {"accepted", "refused"}
