"""The console scripts an installed dpk puts next to its Python: `dpk-ls` lists the devices this
process sees, `dpkc` compiles IR text. They exist where the package was pip-installed (the test
command's build/venv, a wheel's venv); a CMake build imported through PYTHONPATH has no scripts,
and there the tests skip saying so. scripts/test-wheel.sh runs them from a wheel as well."""

import subprocess
import sys
from pathlib import Path

import pytest

import dpk

SCRIPTS = Path(sys.executable).parent


def script(name):
    path = SCRIPTS / name
    if not path.exists():
        pytest.skip(f"{name} is not installed next to {sys.executable} (dpk not pip-installed)")
    return str(path)


def test_dpk_ls_lists_the_devices_python_sees():
    out = subprocess.run([script("dpk-ls")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Plugins:" in out.stdout and "Devices" in out.stdout
    for device in dpk.get_devices():
        assert device.filter_string in out.stdout


def test_dpkc_compiles_ir_text(tmp_path):
    ir = ("kernel @copy(%a: ptr<global, f32>, %b: ptr<global, f32>) {\n"
          "  %i = global_id 0 : i64\n  %x = load %a[%i] : f32\n  store %b[%i], %x\n"
          "  return\n}\n")
    spv = tmp_path / "copy.spv"
    out = subprocess.run([script("dpkc"), "--emit=spirv", "-o", str(spv), "-"], input=ir,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert spv.read_bytes()[:4] == b"\x03\x02\x23\x07"  # the SPIR-V magic number, little-endian


def test_dpkc_reports_bad_ir_with_its_location():
    out = subprocess.run([script("dpkc"), "--emit=llvm", "-"], input="kernel @k( {\n",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "1:" in out.stderr and "error" in out.stderr


def test_entry_point_without_the_tool_says_where_to_look(monkeypatch, tmp_path, capsys):
    from dpk import _cli
    monkeypatch.setattr(_cli, "tool_path", lambda name: tmp_path / name)
    monkeypatch.setattr(sys, "argv", ["dpk-ls"])
    with pytest.raises(SystemExit) as exit_info:
        _cli.dpk_ls()
    assert exit_info.value.code == 127
    assert "dpk-ls: not installed" in capsys.readouterr().err
