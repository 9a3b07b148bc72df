"""A garbage collection when the interpreter exits, while it is still whole.

Left to the interpreter's final collection, reference cycles that held autograd graphs
were freed during finalization, and an autograd device thread then released a finished
graph task whose thread-local state holds a Python object. Taking the GIL there, the
thread is ended by Python (pthread_exit), whose forced unwind through a noexcept
destructor aborts the process: "terminate called without an active exception" after a
test file had passed (a contract file, two at a time on two cores: 9 runs of 60; with this
collection at exit, 0 of 60). Registered once torch has loaded with a backend."""

from __future__ import annotations

import atexit
import gc

_registered = False


def collect_at_exit() -> None:
    """Registers the collection once per process (the torch._C import hook and every
    device module that build_device_module makes ask)."""
    global _registered
    if not _registered:
        atexit.register(gc.collect)
        _registered = True
