"""Run a backend's code around the initialisation of `torch._C`, without touching torch.

Stock torch freezes some backend state while `torch._C` initialises (its module init asks
the CUDA hooks registry for hooks once, for `torch._C._has_magma`, and keeps what it got),
and `torch/cuda/*.py` captures `torch._C` names when it is imported, right after. A
backend on the CUDA key must therefore have its library loaded before that init, and its
Python names in `torch._C` before anything imports `torch.cuda`.

`install_torch_c_hook` puts a one-shot finder at the front of `sys.meta_path`. It answers
only for `torch._C`: it finds the real extension as the import system would and wraps its
loader, so that `before_init()` runs just before the extension's `PyInit__C` and
`after_init(torch._C)` right after it. Importing this module costs microseconds and loads
nothing (it is what a `.pth` file may import at every interpreter start); the finder steps
aside for every other name and removes itself once `torch._C` is loaded.

A failure in either call is sticky: `torch._C`'s init has already run, so a retried
`import torch` would otherwise come up as plain CPU torch (or fail obscurely). Every later
import of `torch._C` in the process raises the first failure again.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import sys
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType

TORCH_C = "torch._C"


class TorchAlreadyImportedError(ImportError):
    """The backend was activated after `torch._C` had initialised without it."""


# Duck-typed loader and finder: importlib.abc would cost a millisecond at every start.
class _WrappingLoader:
    def __init__(
        self,
        real: importlib.machinery.ExtensionFileLoader,
        before_init: Callable[[], None],
        after_init: Callable[[ModuleType], None],
    ) -> None:
        self._real = real
        self._before_init = before_init
        self._after_init = after_init

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        # An extension module's init function runs in create_module: load the backend first.
        with _sticky_failure():
            self._before_init()
        return self._real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._real.exec_module(module)
        with _sticky_failure():
            self._after_init(module)
        # Imported here, once torch loads: preload itself is imported at every start.
        from torch_core.exit_collection import collect_at_exit

        collect_at_exit()


class _FailedActivationFinder:
    """Raises a backend's first activation failure again at every import of torch._C."""

    def __init__(self, error: BaseException) -> None:
        self._error = error

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != TORCH_C:
            return None
        raise ImportError(
            f"the backend failed to load when torch was first imported in this process: "
            f"{self._error} (fix the cause and start a new process; torch cannot be imported "
            "again without it)"
        ) from self._error


@contextlib.contextmanager
def _sticky_failure() -> Iterator[None]:
    try:
        yield
    except BaseException as error:
        sys.meta_path.insert(0, _FailedActivationFinder(error))
        raise


class _TorchCFinder:
    def __init__(
        self, before_init: Callable[[], None], after_init: Callable[[ModuleType], None]
    ) -> None:
        self._before_init = before_init
        self._after_init = after_init

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != TORCH_C:
            return None
        sys.meta_path.remove(self)  # one-shot, and not asked again by the search below
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _WrappingLoader(spec.loader, self._before_init, self._after_init)
        return spec


def install_torch_c_hook(
    before_init: Callable[[], None], after_init: Callable[[ModuleType], None]
) -> None:
    """Arranges for the two calls around `torch._C`'s initialisation.

    Raises TorchAlreadyImportedError when `torch._C` is already initialised: the backend
    came too late, and the message says how to activate it in time.
    """
    if TORCH_C in sys.modules:
        raise TorchAlreadyImportedError(
            "torch was imported before this backend was activated, so torch._C initialised "
            "without it (its CUDA hooks and torch.cuda's bindings are fixed at that point). "
            "Install the backend's wheel (its .pth file activates it at interpreter start), "
            "or import the backend before torch."
        )
    sys.meta_path.insert(0, _TorchCFinder(before_init, after_init))
