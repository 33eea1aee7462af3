"""The IR builder bindings (dpk._core.Builder): build, print, parse back, verify."""

import pytest

import dpk


def build_vector_add(core):
    m = core.Module()
    b = core.Builder(m)
    view = core.Type.view(core.AddressSpace.Global, core.ScalarKind.F32, 1)
    fn = b.create_function("vadd", True, [view, view, view], ["a", "b", "c"], core.Type.void())
    a, bb, c = fn.params
    i = b.work_item(core.OpKind.GlobalId, 0)
    s = b.binary(core.OpKind.Add, b.view_load(a, [i]), b.view_load(bb, [i]))
    b.view_store(c, [i], s)
    b.ret()
    return m


def test_build_print_parse_verify(core):
    m = build_vector_add(core)
    m.verify()
    text = m.print()
    assert "kernel @vadd(%a: view<global, f32, 1>" in text
    again = core.parse_module(text)
    assert again.print() == text
    assert m.function_names == ["vadd"]


def test_types(core):
    t = core.Type.scalar(core.ScalarKind.F64)
    assert str(t) == "f64" and t.is_float() and not t.is_integer()
    assert core.Type.scalar(core.ScalarKind.I32) == core.Type.scalar(core.ScalarKind.I32)
    assert str(core.Type.pointer(core.AddressSpace.Local, core.ScalarKind.I32)) == "ptr<local, i32>"


def test_verifier_errors_become_exceptions(core):
    m = core.Module()
    b = core.Builder(m)
    b.create_function("bad", True, [], [], core.Type.void())
    x = b.const_int(core.ScalarKind.I32, 1)
    y = b.const_float(core.ScalarKind.F32, 2.0)
    b.binary(core.OpKind.Add, x, y)  # mismatched operand types
    b.ret()
    with pytest.raises(dpk.VerifyError):
        m.verify()


def test_parse_errors(core):
    with pytest.raises(dpk.ParseError):
        core.parse_module("kernel @x( {", "broken.dpkir")
