"""``AtomicRef``: atomic operations on one element of an array (``sycl::atomic_ref``).

In the pure-Python mode the operations hold one process-wide lock, so that work-items running as
threads (kernels with barriers) still see each update as indivisible.
"""

from __future__ import annotations

import threading

from .memory_enums import AddressSpace, MemoryOrder, MemoryScope

_LOCK = threading.RLock()


class AtomicRef:
    """An atomic view of ``ref[index]``.

    ``memory_order``, ``memory_scope`` and ``address_space`` are kept for the compiler; compiled
    kernels take the address space from the array itself (a LocalAccessor is local memory).
    """

    __slots__ = ("_ref", "_index", "_memory_order", "_memory_scope", "_address_space")

    def __init__(self, ref, index=0, memory_order=MemoryOrder.RELAXED,
                 memory_scope=MemoryScope.DEVICE, address_space=AddressSpace.GLOBAL):
        self._ref = ref
        self._index = index
        self._memory_order = memory_order
        self._memory_scope = memory_scope
        self._address_space = address_space

    @property
    def ref(self):
        return self._ref[self._index]

    @property
    def memory_order(self) -> MemoryOrder:
        return self._memory_order

    @property
    def memory_scope(self) -> MemoryScope:
        return self._memory_scope

    @property
    def address_space(self) -> AddressSpace:
        return self._address_space

    def _update(self, fn, val):
        with _LOCK:
            old = self._ref[self._index]
            old = old.copy() if hasattr(old, "copy") else old
            self._ref[self._index] = fn(old, val)
            return old

    def fetch_add(self, val):
        """Adds ``val``; returns the previous value."""
        return self._update(lambda a, b: a + b, val)

    def fetch_sub(self, val):
        return self._update(lambda a, b: a - b, val)

    def fetch_min(self, val):
        return self._update(lambda a, b: b if b < a else a, val)

    def fetch_max(self, val):
        return self._update(lambda a, b: b if b > a else a, val)

    def fetch_and(self, val):
        return self._update(lambda a, b: a & b, val)

    def fetch_or(self, val):
        return self._update(lambda a, b: a | b, val)

    def fetch_xor(self, val):
        return self._update(lambda a, b: a ^ b, val)

    def exchange(self, val):
        """Stores ``val``; returns the previous value."""
        return self._update(lambda a, b: b, val)

    def load(self):
        with _LOCK:
            return self._ref[self._index]

    def store(self, val):
        with _LOCK:
            self._ref[self._index] = val

    def compare_exchange(self, expected, desired, expected_idx=0):
        """If ``ref[index] == expected[expected_idx]`` stores ``desired`` and returns True;
        otherwise writes the current value into ``expected[expected_idx]`` and returns False."""
        with _LOCK:
            current = self._ref[self._index]
            if current == expected[expected_idx]:
                self._ref[self._index] = desired
                return True
            expected[expected_idx] = current
            return False
