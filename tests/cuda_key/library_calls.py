"""The NVIDIA library calls the simulated variant stood in for inside a `with` block, by
name (_CUDAC._simulated_library_calls): what an operator's plan called, as a profiler
shows the library's kernels on a GPU."""

from __future__ import annotations

import torch

import _CUDAC

# The real variant records nothing: its executors are tested without torch in tests/gpu.
RECORDED = hasattr(_CUDAC, "_simulated_library_calls")


class LibraryCalls:
    """The library calls made inside a `with` block, by name (after synchronising, so
    that queued work counts)."""

    def __enter__(self) -> LibraryCalls:
        torch.cuda.synchronize()
        self._before = _CUDAC._simulated_library_calls()
        self.made: dict[str, int] = {}
        return self

    def __exit__(self, *exc: object) -> None:
        torch.cuda.synchronize()
        after = _CUDAC._simulated_library_calls()
        before = self._before
        self.made = {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}
