"""Moving a sample's arguments and an op's outputs between devices, and comparing them:
the value handling of the OpInfo conformance harness (op_conformance.py)."""

from __future__ import annotations


def to_device(obj: object, device: str) -> object:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    # Factory functions and `to` name the device: `device="cpu"`, or "cpu" positionally.
    is_cpu_name = isinstance(obj, str) and obj == "cpu"
    is_cpu_device = isinstance(obj, torch.device) and obj.type == "cpu"
    if is_cpu_name or is_cpu_device:
        return torch.device(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(to_device(x, device) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(x, device) for x in obj)
    if isinstance(obj, dict):
        return {k: to_device(v, device) for k, v in obj.items()}
    return obj


def device_types(obj: object, found: set[str]) -> set[str]:
    import torch

    if isinstance(obj, torch.Tensor):
        found.add(obj.device.type)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            device_types(x, found)
    elif isinstance(obj, dict):
        for x in obj.values():
            device_types(x, found)
    return found


def to_cpu(obj: object) -> object:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return tuple(to_cpu(x) for x in obj)  # namedtuple -> tuple: compare by position
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(x) for x in obj)
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    return obj


def metadata(obj: object) -> object:
    import torch

    if isinstance(obj, torch.Tensor):
        return ("tensor", tuple(obj.shape), str(obj.dtype))
    if isinstance(obj, (list, tuple)):
        return tuple(metadata(x) for x in obj)
    if isinstance(obj, dict):
        return {k: metadata(v) for k, v in obj.items()}
    return type(obj).__name__


def compare(actual: object, expected: object, tolerance: tuple[float, float] | None) -> None:
    """Raises AssertionError when `actual` (moved to the CPU) differs from `expected`."""
    import torch

    kwargs = {"equal_nan": True}
    if tolerance is not None:
        kwargs.update(rtol=tolerance[0], atol=tolerance[1])
    try:
        torch.testing.assert_close(actual, expected, **kwargs)
    except TypeError:
        # Types assert_close does not know (strings, torch.Size in odd places, ...).
        if actual != expected:
            raise AssertionError(f"{actual!r} != {expected!r}") from None


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def same(a: object, b: object) -> bool:
    try:
        compare(a, b, None)
        return True
    except Exception:
        return False
