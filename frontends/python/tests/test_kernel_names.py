"""Python functions named after words C and OpenCL C reserve (`kernel`, `int`, `float4`), or
with non-ASCII or leading-underscore names, compile and run on every device: the frontend gives
the IR an identifier every target accepts (the IR verifier refuses reserved kernel names)."""

import importlib.util

import numpy as np
import pytest

import dpk

NAMES = ["kernel", "int", "float4", "__x", "ünï", "global_"]


@pytest.mark.parametrize("name", NAMES)
def test_reserved_and_unusual_names_run(device, tmp_path, name):
    path = tmp_path / f"k_{NAMES.index(name)}.py"
    path.write_text(f"import dpk\n\n@dpk.kernel\ndef {name}(item, a):\n"
                    "    i = item.get_id(0)\n    a[i] = i\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"dpk_names_{NAMES.index(name)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = dpk.zeros(16, dtype=dpk.int32, device=device)
    dpk.call_kernel(getattr(module, name), dpk.Range(16), out)
    np.testing.assert_array_equal(np.asarray(out), np.arange(16, dtype=np.int32))
