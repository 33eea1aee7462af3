"""Memory orders, scopes and address spaces, with kapi's (and SYCL's) names and values."""

from enum import IntEnum


class MemoryOrder(IntEnum):
    """``sycl::memory_order``; CONSUME_UNSUPPORTED compiles as ACQUIRE."""

    RELAXED = 0
    ACQUIRE = 1
    CONSUME_UNSUPPORTED = 2
    RELEASE = 3
    ACQ_REL = 4
    SEQ_CST = 5


class MemoryScope(IntEnum):
    """``sycl::memory_scope``."""

    WORK_ITEM = 0
    SUB_GROUP = 1
    WORK_GROUP = 2
    DEVICE = 3
    SYSTEM = 4


class AddressSpace(IntEnum):
    """Address spaces of kapi (values as numba-dpex numbers them)."""

    PRIVATE = 0
    GLOBAL = 1
    CONSTANT = 2
    LOCAL = 3
    GENERIC = 4
