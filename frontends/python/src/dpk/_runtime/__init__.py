"""The Python side of dpk's C runtime, shared by every programming model: devices and their
queues (devices.py), what the policy says where a launch must choose between devices
(policy.py), and the diagnostics records (diagnostics.py; public as ``dpk.diagnostics``).

Imports only ``dpk._errors`` and ``dpk._core_loader`` (see tests/test_layering.py).
"""
