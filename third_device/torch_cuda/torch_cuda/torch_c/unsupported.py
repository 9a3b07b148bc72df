"""The names of features torch_cuda does not have yet (coverage.STUBS): classes whose
construction and call raise an error naming the feature, so that torch/cuda's imports
work and a use fails clearly.
"""

from __future__ import annotations

from typing import Any

from torch_cuda.torch_c.coverage import STUBS


def unsupported(name: str, feature: str) -> type:
    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"torch_cuda does not support {feature} yet (torch._C.{name})")

    return type(
        name, (), {"__new__": fail, "__init__": fail, "__doc__": f"Unsupported: {feature}."}
    )


def build() -> dict[str, Any]:
    return {name: unsupported(name, feature) for name, feature in STUBS.items()}
