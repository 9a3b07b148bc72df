"""A one-shot import hook for ledger entries that patch a module torch imports later."""

from __future__ import annotations

import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType


class AfterImport:
    """One-shot meta-path finder: runs its callbacks, in order, right after `name` executes.

    One finder per module: the import system asks finders in turn and stops at the first
    that answers, so a second finder for the same name would never run."""

    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name = name
        self.callbacks = [then]

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        real_exec, callbacks = spec.loader.exec_module, self.callbacks

        class _Loader:
            def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
                return None

            def exec_module(self, module: ModuleType) -> None:
                real_exec(module)
                for then in callbacks:
                    then(module)

        spec.loader = _Loader()
        return spec


def run_after_import(name: str, then: Callable[[ModuleType], None]) -> None:
    """`then(module)` now if module `name` has been imported, else right after it is."""
    if name in sys.modules:
        then(sys.modules[name])
        return
    for finder in sys.meta_path:
        if isinstance(finder, AfterImport) and finder.name == name:
            finder.callbacks.append(then)
            return
    sys.meta_path.insert(0, AfterImport(name, then))
