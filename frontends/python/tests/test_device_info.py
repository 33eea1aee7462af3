"""Device properties in Python match what the C API's dpk_device_info_t says, under dpctl's
names; print_device_info(); get_devices(backend=..., device_type=...) as dpctl's."""

import enum
import io

import pytest

import dpk


def test_properties_match_the_c_api(device):
    native = device._dev  # dpk._core.Device: dpk_device_info_t field by field
    assert device.max_compute_units == device.compute_units == native.compute_units > 0
    assert device.global_mem_size == native.global_mem_size > 0
    assert device.local_mem_size == native.local_mem_size
    assert device.max_work_group_size == native.max_work_group_size > 0
    assert device.max_work_item_sizes == tuple(native.max_work_item_sizes)
    assert len(device.max_work_item_sizes) == 3 and all(s > 0 for s in device.max_work_item_sizes)
    assert device.driver_version == native.driver_version
    assert device.vendor == native.vendor and device.name == native.name
    assert device.backend in ("host", "opencl", "level_zero", "cuda")
    assert device.device_type in ("cpu", "gpu", "accelerator")
    bits = {"fp64": 1, "fp16": 2, "atomic64": 4, "usm_device": 8, "usm_shared": 16,
            "usm_host": 32}
    assert set(device.aspects) == {name for name, bit in bits.items() if native.aspects & bit}
    assert device.has_aspect_fp64 == device.has_fp64 == bool(native.aspects & 1)
    assert device.has_aspect_fp16 == device.has_fp16 == bool(native.aspects & 2)
    assert device.has_aspect_atomic64 == bool(native.aspects & 4)
    assert device.has_aspect_usm_device_allocations == bool(native.aspects & 8)
    assert device.has_aspect_usm_shared_allocations == device.has_unified_memory \
        == bool(native.aspects & 16)
    assert device.has_aspect_usm_host_allocations == bool(native.aspects & 32)
    assert device.artifact_formats and set(device.artifact_formats) <= {
        "host-native", "spirv", "opencl-c", "ptx"}


def test_host_device_facts(host):
    assert host.backend == "host" and host.device_type == "cpu"
    assert host.artifact_formats == ("host-native",)
    assert host.has_unified_memory and host.has_fp64


def test_print_device_info(device):
    out = io.StringIO()
    device.print_device_info(file=out)
    text = out.getvalue()
    for key in ("name", "vendor", "driver_version", "backend", "device_type", "filter_string",
                "max_compute_units", "global_mem_size", "local_mem_size",
                "max_work_group_size", "max_work_item_sizes", "aspects", "artifact_formats"):
        assert f"{key}:" in text
    assert device.filter_string in text and device.driver_version in text
    assert set(device.device_info()) >= {"max_compute_units", "aspects"}


def test_get_devices_filters_like_dpctl(core):
    every = dpk.get_devices()
    assert dpk.get_devices("all", "all") == every
    for backend in ("host", "opencl", "level_zero", "cuda"):
        assert dpk.get_devices(backend=backend) == [d for d in every if d.backend == backend]
    for kind in ("cpu", "gpu", "accelerator"):
        assert dpk.get_devices(device_type=kind) == [d for d in every if d.device_type == kind]
    assert dpk.get_devices(backend="HOST", device_type="CPU") == [dpk.select_device("host")]
    assert dpk.get_devices(backend="host", device_type="gpu") == []


def test_get_devices_takes_enum_members(core):
    backend_type = enum.Enum("backend_type", "all opencl cuda level_zero host")
    device_type = enum.Enum("device_type", "all cpu gpu accelerator")
    assert dpk.get_devices(backend_type.host, device_type.cpu) == [dpk.select_device("host")]
    assert dpk.get_devices(backend_type.all) == dpk.get_devices()


def test_get_devices_rejects_unknown_names(core):
    with pytest.raises(ValueError, match="unknown backend 'sycl'.*level_zero"):
        dpk.get_devices(backend="sycl")
    with pytest.raises(ValueError, match="unknown device type 'fpga'"):
        dpk.get_devices(device_type="fpga")
    with pytest.raises(TypeError):
        dpk.get_devices(backend=3)
