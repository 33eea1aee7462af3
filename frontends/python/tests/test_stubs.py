"""The extension's interface, pinned: stubs generated from dpk._core must equal the committed
reference (tests/_core.pyi.ref). After changing a binding, regenerate it with
    PYTHONPATH=build/python python3 frontends/python/tests/test_stubs.py --update
"""

import os
import subprocess
import sys
import tempfile

REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_core.pyi.ref")


def generate():
    import nanobind
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "_core.pyi")
        subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "dpk._core", "-o",
                        out], check=True, env=dict(os.environ))
        with open(out, encoding="utf-8") as f:
            return f"# nanobind {nanobind.__version__}\n" + f.read()


def test_stubs_match_reference(core):
    import pytest
    with open(REF, encoding="utf-8") as f:
        reference = f.read()
    current = generate()
    ref_version = reference.splitlines()[0]
    if ref_version != current.splitlines()[0]:
        pytest.skip(f"reference made with {ref_version[2:]}, this machine has "
                    f"{current.splitlines()[0][2:]}: stub formatting may differ")
    assert current == reference, ("dpk._core's interface changed: review the difference, then "
                                  "regenerate with `python3 frontends/python/tests/test_stubs.py "
                                  "--update`")


if __name__ == "__main__":
    if "--update" in sys.argv:
        with open(REF, "w", encoding="utf-8") as f:
            f.write(generate())
        print("wrote", REF)
