"""A table of torch._C names under construction, filled by decorating functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


class Names(dict[str, Any]):
    """name -> object; ``export`` adds a function under its own name."""

    def export(self, fn: _F) -> _F:
        self[fn.__name__] = fn
        return fn
